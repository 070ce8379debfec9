import { SseParser } from './sse-parser';

test('frames split across chunks anywhere, CRLF split in two, comments skipped, data lines joined', () => {
  const text = ': keepalive\r\nevent: message.delta\r\ndata: {"a":1}\r\nid: 7\r\n\r\nevent: x\ndata: one\ndata:two\n\nid: 9\rdata: three\r\r\n';
  for (let cut = 0; cut <= text.length; cut++) {
    const parser = new SseParser();
    const frames = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))];
    expect(frames).toEqual([
      { id: '7', event: 'message.delta', data: '{"a":1}' },
      { event: 'x', data: 'one\ntwo' },
      { id: '9', event: 'message', data: 'three' },
    ]);
  }
});

test('a frame without data is not dispatched; an unfinished frame waits for its blank line', () => {
  const parser = new SseParser();
  expect(parser.push('event: nothing\n\n')).toEqual([]);
  expect(parser.push('data: half\n')).toEqual([]);
  expect(parser.push('\n')).toEqual([{ event: 'message', data: 'half' }]);
});
