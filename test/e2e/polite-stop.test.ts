import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { turnWorkflowId } from '../../contracts/workflow-ids';
import { deltasOf, eventData, interruptMidAnswer, type MidAnswerOutcome } from '../harness/mid-answer';
import { openSse, readUntil, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { workerRunning } from '../harness/worker-of-activity';

/**
 * A polite stop of a worker (SIGTERM: what `npm stop`, Ctrl-C of `npm start`, a deploy or a rolling
 * restart sends) in the middle of a turn is strand's infrastructure, never the model's fault: the
 * worker lets its activities run for its grace time, then hands them back, and another worker (or
 * this one, once started again) goes on. Two workers, as `npm start` runs them.
 */
let stack: TestStack;
let base: string;
let temporal: Connection;
let client: Client;
const scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-stop-scripts-'));
const MARKER = `strand-stop-${process.pid}`;
/** Matches the command, not the shell that runs pgrep with it. */
const PATTERN = `strand-sto[p]-${process.pid}`;
/** Long enough that the answer outlasts the worker's grace time (STRAND_WORKER_SHUTDOWN_GRACE_MS below). */
const WORDS = 300;
/**
 * The workers' grace time. The short command (1 s) must finish inside it with its start, checkpoint and
 * ledger write on a loaded CI machine: 2.5 s once was not enough there (the call was handed back and
 * reported interrupted).
 */
const GRACE_MS = 4000;

beforeAll(async () => {
  const script = (name: string, command: string) =>
    fs.writeFileSync(
      path.join(scripts, `${name}.json`),
      JSON.stringify({
        steps: [[{ type: 'tool_call', name: 'shell_exec', args: { command, timeout_s: 120 } }], [{ type: 'text', text: 'Result: {{tool_result_first_line}}' }]],
      }),
    );
  script('long-shell', `sleep 40; echo ${MARKER}-long`);
  script('short-shell', `sleep 1; echo ${MARKER}-short`);
  stack = await startTestStack(
    { STRAND_SCRIPTED_DELTA_DELAY_MS: '50', STRAND_SCRIPTS_DIR: scripts, STRAND_WORKER_SHUTDOWN_GRACE_MS: String(GRACE_MS) },
    { instances: { worker: 2 } },
  );
  base = stack.urls.gateway;
  temporal = await Connection.connect({ address: stack.urls.temporal });
  client = new Client({ connection: temporal });
}, 240_000);

afterAll(async () => {
  await temporal?.close();
  await stack?.teardown();
  execSync(`pkill -9 -f '${PATTERN}' || true`);
  fs.rmSync(scripts, { recursive: true, force: true });
}, 60_000);

/** Stops an instance with SIGTERM and expects it to have exited by itself (0), not by the SIGKILL that follows a stuck stop. */
async function stopPolitely(name: string): Promise<void> {
  const proc = stack.process(name as never);
  await proc.stop(15_000);
  expect(proc.exitCode).toBe(0);
}

/** What every polite stop mid-answer must leave: the whole answer, each word once, and nothing blamed on the model. */
function expectWholeAnswer({ all, answer, stored }: MidAnswerOutcome): void {
  expect(stored[1].message.content).toEqual([{ type: 'text', text: answer }]);
  expect(stored[1].message.stop_reason).not.toBe('aborted');
  expect(all.some((e) => e.event === 'error')).toBe(false);
  expect(all.some((e) => e.event === 'stream.reset')).toBe(false);
  // A client that knows nothing of retries joins every delta's content.
  expect(deltasOf(all).map((d) => d.content).join('')).toBe(answer);
  for (const retry of all.filter((e) => e.event === 'retry').map(eventData)) {
    expect(retry.reason).not.toMatch(/LLM_API_ERROR|permanent/);
  }
}

test('the worker running the answer is stopped politely: the other worker continues it, nothing lost, doubled or blamed on the model', async () => {
  let stopped = '';
  const outcome = await interruptMidAnswer(
    base,
    async (sid) => {
      stopped = await workerRunning(stack, client.workflow.getHandle(turnWorkflowId(sid, 1)), 'streamModelStep');
      await stopPolitely(stopped);
    },
    { projectPath: '/tmp/strand-e2e-stop', words: WORDS },
  );
  expectWholeAnswer(outcome);
  // The answer was handed back, not finished inside the grace time: a second attempt carried the rest.
  expect([...new Set(deltasOf(outcome.all).map((d) => d.attempt))]).toEqual([1, 2]);
  const retries = outcome.all.filter((e) => e.event === 'retry').map((e) => eventData(e).reason as string);
  expect(retries).toEqual([expect.stringMatching(/was stopped \(a restart or a deploy\)/)]);
  await stack.restart(stopped as never);
}, 240_000);

test('a rolling restart of both workers mid-answer (stop one, start it again, then the other): the answer is whole and once', async () => {
  const outcome = await interruptMidAnswer(
    base,
    async () => {
      for (const name of stack.instances('worker')) {
        await stopPolitely(name);
        await stack.restart(name);
      }
    },
    { projectPath: '/tmp/strand-e2e-stop', words: WORDS },
  );
  expectWholeAnswer(outcome);
}, 300_000);

test('every worker stopped politely, then one started again: the answer goes on from where it was', async () => {
  const outcome = await interruptMidAnswer(
    base,
    async () => {
      await Promise.all(stack.instances('worker').map((name) => stopPolitely(name)));
      await stack.restart('worker');
    },
    { projectPath: '/tmp/strand-e2e-stop', words: WORDS },
  );
  expectWholeAnswer(outcome);
  await stack.restart('worker#2' as never);
}, 300_000);

/** Starts a turn whose model runs `model`'s shell command, stops the worker running it once it runs, and reads the turn to its end. */
async function stopMidShell(model: string): Promise<{ rest: SseEvent[]; stored: any[] }> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-stop-ws-'));
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace, model });
  const sid = created.body.session_id as string;
  await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { always_allow: ['shell_exec'] } });
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'run the command' });
  await readUntil(events, (e) => e.event === 'agent.state' && eventData(e).state === 'tool_execution');
  const running = await workerRunning(stack, client.workflow.getHandle(turnWorkflowId(sid, 1)), 'runTool');
  await stopPolitely(running);
  const rest = await readUntil(events, (e) => e.event === 'turn.finished', 120_000);
  events.close();
  await stack.restart(running as never);
  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  fs.rmSync(workspace, { recursive: true, force: true });
  return { rest, stored };
}

test('a command that ends within the grace time finishes on the stopping worker: its real result, once', async () => {
  const { rest, stored } = await stopMidShell('scripted/short-shell');
  const result = eventData(rest.find((e) => e.event === 'tool.result')!);
  // Status and text together, so a failure shows why the command did not succeed.
  expect({ status: result.status, result: result.result }).toEqual({ status: 'success', result: expect.stringContaining(`${MARKER}-short`) });
  expect(eventData(rest[rest.length - 1]!)).toMatchObject({ outcome: 'done' });
  expect(stored.map((m: any) => m.message.role)).toEqual(['user', 'assistant', 'function_result', 'assistant']);
}, 240_000);

test('a command that outlasts the grace time is reported interrupted, not run again, and the turn goes on (no model error)', async () => {
  const { rest, stored } = await stopMidShell('scripted/long-shell');
  expect(rest.some((e) => e.event === 'error')).toBe(false);
  const result = eventData(rest.find((e) => e.event === 'tool.result')!);
  expect(result).toMatchObject({ status: 'error' });
  expect(result.result).toMatch(/interrupted.*not run again/);
  expect(eventData(rest[rest.length - 1]!)).toMatchObject({ outcome: 'done' });
  expect(stored.map((m: any) => m.message.role)).toEqual(['user', 'assistant', 'function_result', 'assistant']);
  // It ran once, and did not outlive the worker that started it.
  expect(Number(execSync(`pgrep -fc '${PATTERN}-long' || true`).toString().trim())).toBe(0);
}, 240_000);
