import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deltasOf, eventData, interruptMidAnswer } from '../harness/mid-answer';
import { openSse, readUntil } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * Kill -9 the worker in the middle of a streamed answer: the turn still finishes on the restarted
 * worker, the store holds exactly one user and one assistant message, and the retried step continues
 * the answer from the text already published, so an SSE client that only joins `message.delta`s ends
 * with exactly the stored text (no `stream.reset`). A model that cannot continue falls back to
 * `stream.reset` and the whole answer again: a client applying the reset ends with the stored text.
 * Kill it again in the middle of a shell command: the command is reported to the model as interrupted,
 * not run again.
 */
let stack: TestStack;
let base: string;
const scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-scripts-'));
const MARKER = `strand-crash-${process.pid}`;
/** Matches the command, not the shell that runs pgrep/pkill with it. */
const PATTERN = `strand-cras[h]-${process.pid}`;

/** Kills the process group of every command carrying the marker. */
function killLeftovers(): void {
  const pids = execSync(`pgrep -f '${PATTERN}' || true`).toString().split('\n').filter(Boolean);
  for (const pid of pids) {
    try {
      process.kill(-Number(pid), 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
}

beforeAll(async () => {
  fs.writeFileSync(
    path.join(scripts, 'crash-shell.json'),
    JSON.stringify({
      steps: [
        [{ type: 'tool_call', name: 'shell_exec', args: { command: `sleep 40; echo ${MARKER}`, timeout_s: 120 } }],
        [{ type: 'text', text: 'Result: {{tool_result_first_line}}' }],
      ],
    }),
  );
  // The same echo under a name the catalog says cannot continue a prefill: the fallback path.
  fs.writeFileSync(path.join(scripts, 'echo-no-prefill.json'), JSON.stringify({ steps: [[{ type: 'text', text: 'You said: {{user}}' }]], repeat_last_step: true }));
  const models = path.join(scripts, 'models.json');
  fs.writeFileSync(models, JSON.stringify({ models: [{ provider: 'scripted', id: 'echo-no-prefill', name: 'echo, no prefill', context_window: 200000, max_output_tokens: 8192, supports: { prefill: false } }] }));
  stack = await startTestStack({ STRAND_SCRIPTED_DELTA_DELAY_MS: '50', STRAND_SCRIPTS_DIR: scripts, STRAND_MODELS_FILE: models });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  // The command the crashed worker started is not its child any more; make sure it is gone.
  killLeftovers();
  fs.rmSync(scripts, { recursive: true, force: true });
}, 60_000);


/** Kills -9 the worker after the 8th delta of a fresh session's answer, then starts it again. */
const crashMidAnswer = (model?: string) =>
  interruptMidAnswer(
    base,
    async () => {
      await stack.process('worker').kill();
      await stack.restart('worker');
    },
    { projectPath: '/tmp/strand-e2e-crash', ...(model ? { model } : {}) },
  );

const data = eventData;

test('a worker killed mid-stream: the retried step continues the answer; joining the deltas gives exactly the stored text', async () => {
  const { all, answer, stored } = await crashMidAnswer();
  expect(stored[1].message.content).toEqual([{ type: 'text', text: answer }]);
  expect(all.some((e) => e.event === 'stream.reset')).toBe(false);
  // A client that knows nothing of retries: it joins every delta's content.
  const deltas = deltasOf(all);
  expect(deltas.map((d) => d.content).join('')).toBe(answer);
  // The first attempt was cut short and the second carried the rest (a continuation, not a replay).
  const attempts = [...new Set(deltas.map((d) => d.attempt))];
  expect(attempts).toEqual([1, 2]);
  expect(deltas.every((d) => d.step === 0 && d.turn_id === 't1')).toBe(true);
}, 150_000);

test('a model that cannot continue: stream.reset, then the whole answer; a client applying the reset has exactly the stored text', async () => {
  const { all, answer, stored } = await crashMidAnswer('scripted/echo-no-prefill');
  expect(stored[1].message.content).toEqual([{ type: 'text', text: answer }]);
  const resets = all.filter((e) => e.event === 'stream.reset');
  expect(resets.map(data)).toEqual([{ type: 'stream.reset', turn_id: 't1', step: 0, attempt: 2 }]);
  // The rule: a reset empties the step's text; the deltas after it replace it.
  const resetAt = all.indexOf(resets[0]!);
  expect(deltasOf(all.slice(resetAt + 1)).map((d) => d.content).join('')).toBe(answer);
  expect(deltasOf(all.slice(resetAt + 1)).every((d) => d.attempt === 2)).toBe(true);
  // Without applying it, a client would show the first words twice.
  expect(deltasOf(all).map((d) => d.content).join('')).not.toBe(answer);
}, 150_000);

test('a worker killed mid-shell: the command is reported as interrupted, not run again; one result per call', async () => {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-crash-ws-'));
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace, model: 'scripted/crash-shell' });
  const sid = created.body.session_id as string;
  await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { always_allow: ['shell_exec'] } });
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'run the long command' });
  await readUntil(events, (e) => e.event === 'agent.state' && JSON.parse(e.data).state === 'tool_execution');
  await new Promise((r) => setTimeout(r, 500));
  expect(execSync(`pgrep -fc '${PATTERN}' || true`).toString().trim()).not.toBe('0');
  await stack.process('worker').kill();
  await stack.restart('worker');
  const rest = await readUntil(events, (e) => e.event === 'turn.finished', 90_000);
  events.close();
  const result = JSON.parse(rest.find((e) => e.event === 'tool.result')!.data);
  expect(result).toMatchObject({ status: 'error' });
  expect(result.result).toMatch(/interrupted.*not run again/);
  expect(JSON.parse(rest[rest.length - 1]!.data)).toMatchObject({ outcome: 'done' });
  // The command ran once, and did not outlive the worker that started it.
  expect(Number(execSync(`pgrep -fc '${PATTERN}' || true`).toString().trim())).toBe(0);
  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  expect(stored.map((m: any) => m.message.role)).toEqual(['user', 'assistant', 'function_result', 'assistant']);
  expect(stored[2].message.content[0].text).toMatch(/interrupted/);
  expect(stored[3].message.content[0].text).toMatch(/^Result: shell_exec was interrupted/);
  killLeftovers();
  fs.rmSync(workspace, { recursive: true, force: true });
}, 150_000);
