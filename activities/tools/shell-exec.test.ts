import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ToolResult } from './types';
import { ctxFor, killGroups, liveGroupMembers, makeExecutor, makeSandbox, type Sandbox } from './test-support';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until a predicate holds (process-table changes are not instantaneous). */
async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await sleep(25);
  }
  return check();
}

/** The process group a test's command runs in: the command echoes it ('pgid=<n>'). */
function pgidFrom(text: string): number {
  const m = /pgid=(\d+)/.exec(text);
  if (!m) throw new Error(`no pgid in ${JSON.stringify(text)}`);
  return Number(m[1]);
}

describe('shell_exec', () => {
  let sb: Sandbox;
  const started = new Set<number>();
  beforeEach(() => (sb = makeSandbox()));
  afterEach(() => {
    killGroups(started);
    started.clear();
    sb.cleanup();
  });

  async function run(params: unknown, extra: Parameters<typeof ctxFor>[1] = {}, opts = {}): Promise<ToolResult> {
    const res = await makeExecutor(sb, opts).execute('shell_exec', params, ctxFor(sb, extra));
    if (typeof res.details?.pgid === 'number') started.add(res.details.pgid);
    return res;
  }

  test('runs in the workspace, combines stdout and stderr, reports exit code 0', async () => {
    const res = await run({ command: 'pwd; echo out; echo err >&2' });
    expect(res.is_error).toBe(false);
    expect(res.content).toBe(`${sb.ws}\nout\nerr\n[exit code 0]`);
    expect(res.details).toMatchObject({ exit_code: 0, timed_out: false, truncated: false, spill_path: undefined });
    expect(fs.existsSync(sb.spill) ? fs.readdirSync(sb.spill) : []).toEqual([]);
  });

  test('a non-zero exit is an error result with the exit code; stdin is empty', async () => {
    const res = await run({ command: 'read line; echo "got:$line"; exit 7' });
    expect(res).toMatchObject({ is_error: true, content: 'got:\n[exit code 7]', details: { exit_code: 7 } });
    expect(await run({ command: 'true' })).toMatchObject({ is_error: false, content: '(no output)\n[exit code 0]' });
  });

  test('streams output through onOutput before the command ends', async () => {
    const chunks: string[] = [];
    let settled = false;
    let firstWhilePending: boolean | undefined;
    const onOutput = (c: string) => {
      if (chunks.length === 0) firstWhilePending = !settled;
      chunks.push(c);
    };
    const p = run({ command: 'echo first; sleep 0.7; echo second' }, { onOutput }).finally(() => (settled = true));
    expect(await eventually(() => chunks.join('').includes('first'), 2000)).toBe(true);
    expect(settled).toBe(false);
    const res = await p;
    expect(firstWhilePending).toBe(true);
    expect(chunks.join('')).toBe('first\nsecond\n');
    expect(res.content).toBe('first\nsecond\n[exit code 0]');
  });

  test('huge output is capped (head + tail) and the full output is kept in the spill file', async () => {
    const res = await run({ command: 'seq 1 200000' }, {}, { outputCapBytes: 64 * 1024 });
    const full = `${Array.from({ length: 200_000 }, (_, i) => i + 1).join('\n')}\n`;
    expect(res.is_error).toBe(false);
    expect(res.content.length).toBeLessThan(64 * 1024 + 400);
    expect(res.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(res.content.endsWith('199999\n200000\n[exit code 0]')).toBe(true);
    const spill = res.details?.spill_path as string;
    expect(path.dirname(spill)).toBe(sb.spill);
    expect(res.content).toContain(`full output (${full.length} bytes) saved to ${spill}`);
    expect(res.details).toMatchObject({ truncated: true, output_bytes: full.length });
    expect(fs.readFileSync(spill, 'utf8')).toBe(full);
    // The spilled output is retrievable with read_file although it lies outside the workspace.
    const page = await makeExecutor(sb).execute('read_file', { path: spill, offset: 100_000, limit: 2 }, ctxFor(sb));
    expect(page).toMatchObject({ is_error: false });
    expect(page.content.split('\n').slice(0, 2)).toEqual([`100000\t100000`, `100001\t100001`]);
  });

  test.each([
    ['a plain sleep', 'echo pgid=$(ps -o pgid= -p $$ | tr -d " "); sleep 100'],
    ['a backgrounded child', 'echo pgid=$(ps -o pgid= -p $$ | tr -d " "); sleep 100 & wait'],
    ['children that ignore SIGTERM (SIGKILL after the grace)', `trap '' TERM; echo pgid=$(ps -o pgid= -p $$ | tr -d ' '); sleep 100 & sleep 100 & wait`],
  ])('a timeout kills the whole process group: %s', async (_what, command) => {
    let out = '';
    const t0 = Date.now();
    const res = await run({ command, timeout_s: 0.5 }, { onOutput: (c) => (out += c) });
    const pgid = pgidFrom(out);
    started.add(pgid);
    expect(res.is_error).toBe(true);
    expect(res.details).toMatchObject({ timed_out: true, pgid });
    expect(res.content).toContain('[Timed out after 0.5 s: the command and every process it started were killed.');
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await eventually(() => liveGroupMembers(pgid).length === 0)).toBe(true);
  });

  test.each([
    ['a plain sleep', 'echo pgid=$(ps -o pgid= -p $$ | tr -d " "); sleep 100'],
    ['a backgrounded child', 'echo pgid=$(ps -o pgid= -p $$ | tr -d " "); sleep 100 & wait'],
  ])('an abort kills the whole process group and throws the reason: %s', async (_what, command) => {
    const ac = new AbortController();
    let out = '';
    const p = run({ command }, { signal: ac.signal, onOutput: (c) => (out += c) });
    expect(await eventually(() => out.includes('pgid='))).toBe(true);
    const pgid = pgidFrom(out);
    started.add(pgid);
    expect(await eventually(() => liveGroupMembers(pgid).some((m) => m.comm === 'sleep'))).toBe(true);
    const reason = new Error('turn aborted');
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    // Killed before execute returned: nothing of the group is left running.
    expect(liveGroupMembers(pgid)).toEqual([]);
  });

  test('an already-aborted signal throws without starting anything', async () => {
    const ac = new AbortController();
    ac.abort(new Error('early'));
    await expect(run({ command: 'touch started' }, { signal: ac.signal })).rejects.toThrow('early');
    expect(fs.existsSync(path.join(sb.ws, 'started'))).toBe(false);
  });

  test('a background job still holding the output after the shell exits is stopped, not waited for', async () => {
    const t0 = Date.now();
    const res = await run({ command: 'echo pgid=$(ps -o pgid= -p $$ | tr -d " "); sleep 100 & echo done' });
    const pgid = pgidFrom(res.content);
    started.add(pgid);
    expect(res).toMatchObject({ is_error: false });
    expect(res.content).toContain('done');
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(await eventually(() => liveGroupMembers(pgid).length === 0)).toBe(true);
  });

  test('timeouts: the default applies, a request above the maximum is clamped with a note', async () => {
    expect((await run({ command: 'true' }, {}, { defaultShellTimeoutS: 7 })).details).toMatchObject({ timeout_s: 7 });
    const res = await run({ command: 'true', timeout_s: 3000 }, {}, { maxShellTimeoutS: 60 });
    expect(res.details).toMatchObject({ timeout_s: 60 });
    expect(res.content).toContain('[timeout_s 3000 exceeds the maximum; 60 s was used.]');
    expect(await run({ command: 'true', timeout_s: -1 })).toMatchObject({ is_error: true, content: expect.stringContaining('timeout_s:') });
  });

  test('a workspace that does not exist is an error result', async () => {
    const res = await makeExecutor(sb).execute('shell_exec', { command: 'true' }, { workspace: path.join(sb.base, 'gone'), signal: new AbortController().signal });
    expect(res).toMatchObject({ is_error: true, content: expect.stringContaining('is not usable') });
  });
});

test('a command does not outlive the worker that started it (kill -9 of the worker kills its group)', async () => {
  const sb = makeSandbox();
  const groups = new Set<number>();
  try {
    const worker = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'worker-death.fixture.ts'), sb.ws], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    worker.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    expect(await eventually(() => /pgid=\d+/.test(out), 20_000)).toBe(true);
    const pgid = pgidFrom(out);
    groups.add(pgid);
    expect(liveGroupMembers(pgid).length).toBeGreaterThan(0);
    worker.kill('SIGKILL');
    expect(await eventually(() => liveGroupMembers(pgid).length === 0, 5_000)).toBe(true);
  } finally {
    killGroups(groups);
    sb.cleanup();
  }
}, 30_000);
