import fs from 'node:fs';
import path from 'node:path';
import { READ_MAX_BYTES, READ_MAX_LINE_CHARS } from './read-file';
import { ctxFor, makeExecutor, makeSandbox, type Sandbox } from './test-support';

describe('read_file', () => {
  let sb: Sandbox;
  beforeEach(() => (sb = makeSandbox()));
  afterEach(() => sb.cleanup());
  const read = (params: unknown) => makeExecutor(sb).execute('read_file', params, ctxFor(sb));

  test('numbers lines like cat -n, from a 1-based offset, up to a limit', async () => {
    sb.write('a.txt', 'one\ntwo\nthree\nfour\n');
    expect(await read({ path: 'a.txt' })).toMatchObject({ is_error: false, content: '     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour' });
    const page = await read({ path: 'a.txt', offset: 2, limit: 2 });
    expect(page.is_error).toBe(false);
    expect(page.content).toBe('     2\ttwo\n     3\tthree\n[Truncated: showing lines 2-3 of 4 (line limit reached). Use offset=4 to read more.]');
    expect(page.details).toMatchObject({ start_line: 2, end_line: 3, total_lines: 4, truncated: true });
  });

  test('a last line without a newline, CRLF line ends and an empty file', async () => {
    sb.write('b.txt', 'x\r\ny');
    const res = await read({ path: 'b.txt' });
    expect(res.content).toBe('     1\tx\n     2\ty');
    expect(res.details).toMatchObject({ crlf: true, total_lines: 2 });
    sb.write('empty.txt', '');
    expect(await read({ path: 'empty.txt' })).toMatchObject({ is_error: false, content: '(empty.txt is empty)' });
  });

  test('errors: missing file, directory, binary file, offset past the end', async () => {
    expect(await read({ path: 'nope.txt' })).toMatchObject({ is_error: true, content: 'nope.txt does not exist.' });
    fs.mkdirSync(path.join(sb.ws, 'dir'));
    expect(await read({ path: 'dir' })).toMatchObject({ is_error: true, content: expect.stringContaining('is a directory; use list_files') });
    fs.writeFileSync(path.join(sb.ws, 'bin'), Buffer.from([0x89, 0x50, 0x00, 0x01]));
    expect(await read({ path: 'bin' })).toMatchObject({ is_error: true, content: expect.stringContaining('binary file') });
    sb.write('short.txt', 'a\nb\n');
    expect(await read({ path: 'short.txt', offset: 10 })).toMatchObject({ is_error: true, content: 'short.txt has 2 lines; offset 10 is past the end.' });
    expect(await read({ path: 'short.txt', offset: 0 })).toMatchObject({ is_error: true, content: expect.stringMatching(/^Invalid parameters for read_file: offset: /) });
  });

  test('very large output is cut at the byte budget with a note saying how to read on', async () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `line ${i + 1} ${'x'.repeat(40)}`);
    sb.write('big.txt', `${lines.join('\n')}\n`);
    const res = await read({ path: 'big.txt', limit: 50_000 });
    expect(res.is_error).toBe(false);
    expect(res.content.length).toBeLessThan(READ_MAX_BYTES + 500);
    const last = Number(/Use offset=(\d+) to read more/.exec(res.content)?.[1]);
    expect(res.content).toContain('of 50000 (output limit of');
    const next = await read({ path: 'big.txt', offset: last, limit: 1 });
    expect(next.content.startsWith(`${String(last).padStart(6)}\tline ${last} `)).toBe(true);
  });

  test('a file too big to count stops reading once the requested lines are shown', async () => {
    const line = `${'y'.repeat(99)}\n`;
    const fd = fs.openSync(path.join(sb.ws, 'huge.log'), 'w');
    for (let i = 0; i < 200; i++) fs.writeSync(fd, line.repeat(1000));
    fs.closeSync(fd);
    const res = await read({ path: 'huge.log', offset: 3, limit: 2 });
    expect(res.content.split('\n')).toEqual([`     3\t${'y'.repeat(99)}`, `     4\t${'y'.repeat(99)}`, '[Truncated: showing lines 3-4 of a longer file (line limit reached). Use offset=5 to read more.]']);
    expect(res.details).toMatchObject({ total_lines: undefined, truncated: true });
  });

  test('long lines are shortened and say so', async () => {
    sb.write('min.js', `${'a'.repeat(10_000)}\nshort\n`);
    const res = await read({ path: 'min.js' });
    expect(res.content).toContain(`… [line shortened: 10000 characters]`);
    expect(res.content).toContain(`[1 long line(s) shortened to ${READ_MAX_LINE_CHARS} characters.]`);
    expect(res.content).toContain('     2\tshort');
  });

  test('an absolute path inside the workspace works', async () => {
    const p = sb.write('abs.txt', 'hi\n');
    expect(await read({ path: p })).toMatchObject({ is_error: false, content: '     1\thi' });
  });

  test('an abort while reading throws the signal reason', async () => {
    sb.write('a.txt', 'a\n');
    const ac = new AbortController();
    ac.abort(new Error('user abort'));
    await expect(makeExecutor(sb).execute('read_file', { path: 'a.txt' }, ctxFor(sb, { signal: ac.signal }))).rejects.toThrow('user abort');
  });
});
