import { lineSplitter, renderLogLine } from './log-render';

describe('log rendering', () => {
  test('pino lines become time, level, message and fields', () => {
    const line = JSON.stringify({ level: 40, time: Date.UTC(2026, 0, 1, 12, 34, 56), pid: 1, hostname: 'h', service: 'gateway', msg: 'careful', port: 9420, note: 'two words' });
    expect(renderLogLine(line)).toBe('12:34:56 WARN  careful port=9420 note="two words"');
  });

  test('other lines pass through untouched', () => {
    expect(renderLogLine('[store] ready adapter=fs')).toBe('[store] ready adapter=fs');
    expect(renderLogLine('{not json')).toBe('{not json');
    expect(renderLogLine('{"a":1}')).toBe('{"a":1}');
  });

  test('the splitter reassembles lines across chunks', () => {
    const lines: string[] = [];
    const s = lineSplitter((l) => lines.push(l));
    s.push('ab');
    s.push('c\r\nde');
    s.push('f\n\ng');
    s.flush();
    expect(lines).toEqual(['abc', 'def', '', 'g']);
  });
});
