import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeAnthropicServer, type FakeAnthropicReply, type FakeProviderServer } from '../harness/fake-anthropic-server';
import { openSse, readUntil, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * Project instructions end to end (docs/project-instructions.md): the real stack and the real
 * Anthropic SDK in the worker, talking to a local Messages API that records each request. A
 * workspace nested in a git repository with AGENTS.md at both levels: the model is sent both, the
 * root's first; an edit between two turns is in the second turn's request; a file over the cap
 * (STRAND_INSTRUCTIONS_MAX_BYTES, set small here, so it also proves the variable reaches the worker)
 * is cut and the turn's event stream (SSE, as a client reads it) carries the notice.
 */
const CAP = 4096;
let stack: TestStack;
let fake: FakeProviderServer<FakeAnthropicReply>;
let base: string;
let top: string;
let repo: string;
let workspace: string;

beforeAll(async () => {
  fake = await startFakeAnthropicServer();
  top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-instructions-')));
  repo = path.join(top, 'repo');
  workspace = path.join(repo, 'app');
  fs.mkdirSync(path.join(repo, '.git'), { recursive: true });
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(top, 'AGENTS.md'), 'ABOVE-THE-REPOSITORY');
  fs.writeFileSync(path.join(repo, 'AGENTS.md'), 'OUTER-RULE: tabs, not spaces.');
  fs.writeFileSync(path.join(workspace, 'AGENTS.md'), 'INNER-RULE v1: run make check.');
  stack = await startTestStack({
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: fake.baseURL,
    STRAND_DEFAULT_MODEL: 'anthropic/claude-sonnet-4-6',
    STRAND_INSTRUCTIONS_MAX_BYTES: String(CAP),
  });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  await fake?.close();
  if (top) fs.rmSync(top, { recursive: true, force: true });
}, 60_000);

const data = (e: SseEvent) => JSON.parse(e.data);

/** One turn answered by the fake: the system prompt the model was sent, and the notices the turn's SSE stream carried. */
async function turn(sid: string, text: string): Promise<{ system: string; notices: unknown[] }> {
  fake.reply({ blocks: [{ type: 'text', text: 'noted' }] });
  const before = fake.requests.length;
  const stream = await openSse(`${base}/api/sessions/${sid}/events`);
  try {
    expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text })).status).toBe(202);
    const events = await readUntil(stream, (e) => e.event === 'turn.finished', 60_000);
    expect(data(events.at(-1)!).outcome).toBe('done');
    expect(fake.requests.length).toBe(before + 1);
    const system = fake.requests.at(-1)!.body.system as Array<{ type: string; text: string }>;
    return { system: system.map((b) => b.text).join('\n'), notices: events.filter((e) => e.event === 'notice').map(data) };
  } finally {
    stream.close();
  }
}

test('the nested AGENTS.md files reach the model root first, an edit counts from the next turn, a cut is announced', async () => {
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace });
  expect(created.status).toBe(201);
  const sid = created.body.session_id as string;

  const { system: first, notices: firstNotices } = await turn(sid, 'hello');
  expect(firstNotices).toEqual([]);
  expect(first).toContain('Project instructions from AGENTS.md:\nOUTER-RULE: tabs, not spaces.\n\nProject instructions from app/AGENTS.md:\nINNER-RULE v1: run make check.');
  expect(first).not.toContain('ABOVE-THE-REPOSITORY');

  fs.writeFileSync(path.join(workspace, 'AGENTS.md'), 'INNER-RULE v2: run make test.');
  const { system: second, notices: secondNotices } = await turn(sid, 'again');
  expect(secondNotices).toEqual([]);
  expect(second).toContain('Project instructions from app/AGENTS.md:\nINNER-RULE v2: run make test.');
  expect(second).not.toContain('INNER-RULE v1');
  expect(second.indexOf('OUTER-RULE')).toBeLessThan(second.indexOf('INNER-RULE v2'));

  // The root's file grows past the cap: the nearest (the workspace's) stays whole, the root's is cut.
  const inner = Buffer.byteLength('INNER-RULE v2: run make test.');
  fs.writeFileSync(path.join(repo, 'AGENTS.md'), `OUTER-RULE: tabs, not spaces.\n${'o'.repeat(6000)}`);
  const outerSize = fs.statSync(path.join(repo, 'AGENTS.md')).size;
  const { system: third, notices } = await turn(sid, 'and now');
  const kept = CAP - inner;
  expect(third).toContain(`[… AGENTS.md cut here: ${kept} of ${outerSize} bytes kept; project instructions are capped at ${CAP} bytes in all]`);
  expect(third).toContain('Project instructions from app/AGENTS.md:\nINNER-RULE v2: run make test.');
  expect(third).not.toContain('o'.repeat(kept));
  // One notice, from the third turn only (the first two were under the cap).
  expect(notices).toEqual([{ type: 'notice', level: 'warning', message: `project instructions are capped at ${CAP} bytes: AGENTS.md cut to ${kept} of ${outerSize} bytes` }]);
}, 180_000);
