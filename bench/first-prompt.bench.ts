import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { sessionWorkflowId } from '../contracts/workflow-ids';
import { startStack } from '../infra/stack/stack';
import { openSse } from '../test/harness/sse-client';
import { median, nowMs } from './stats';

/**
 * The first prompt after the stack says ready (issue 22): a fresh stack per run (new data dir, so a
 * new Temporal database and task queues, as on a first `npm start`), then at once: create a session,
 * prompt it, wait for its turn.finished; then the same on a second session, which pays no start-up
 * cost. Where the first prompt's time goes is read from the session workflow's history: update
 * received → its first workflow task dispatched to a worker → completed by it.
 * Run: `npm run bench:first-prompt` (BENCH_RUNS, default 3; BENCH_WORKERS, default 2 as `npm start`;
 * BENCH_WARM_UP=0 without the warm-up that `strand up` does before it says ready). Prints one JSON document.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** BENCH_WARM_UP=0 starts the stack as it started before the warm-up (infra/stack/warm-up.ts), for comparison. */
const WARM_UP = process.env.BENCH_WARM_UP !== '0';
const progress = (what: string) => console.error(`[bench] ${what}`);

type Timings = { prompt_to_202_ms: number; prompt_to_turn_finished_ms: number };

async function promptOnce(base: string, text: string): Promise<Timings & { sessionId: string }> {
  const json = { 'content-type': 'application/json' };
  const created = await fetch(`${base}/api/sessions`, { method: 'POST', headers: json, body: JSON.stringify({ project_path: os.tmpdir() }) });
  if (created.status !== 201) throw new Error(`POST /api/sessions answered ${created.status}: ${await created.text()}`);
  const { session_id: sessionId } = (await created.json()) as { session_id: string };
  const events = await openSse(`${base}/api/sessions/${sessionId}/events`);
  try {
    const t0 = nowMs();
    const res = await fetch(`${base}/api/sessions/${sessionId}/prompt`, { method: 'POST', headers: json, body: JSON.stringify({ text }) });
    const accepted = nowMs() - t0;
    if (res.status !== 202) throw new Error(`the prompt was answered ${res.status}: ${await res.text()}`);
    for (;;) {
      const e = await events.next(60_000);
      if (!e) throw new Error('the event stream ended before turn.finished');
      if (e.event === 'turn.finished') return { sessionId, prompt_to_202_ms: accepted, prompt_to_turn_finished_ms: nowMs() - t0 };
    }
  } finally {
    events.close();
  }
}

/** Milliseconds between the session workflow's first events: where the first update waited. */
async function firstTaskBreakdown(client: Client, sessionId: string) {
  const history = await client.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory();
  const at = (pred: (e: NonNullable<typeof history.events>[number]) => boolean) => {
    const e = (history.events ?? []).find(pred);
    return e ? Number(e.eventTime?.seconds ?? 0) * 1000 + Math.round((e.eventTime?.nanos ?? 0) / 1e6) : NaN;
  };
  const started = at((e) => !!e.workflowExecutionStartedEventAttributes);
  const taskStarted = at((e) => !!e.workflowTaskStartedEventAttributes);
  const taskCompleted = at((e) => !!e.workflowTaskCompletedEventAttributes);
  return { workflow_started_to_task_picked_up_ms: taskStarted - started, task_picked_up_to_completed_ms: taskCompleted - taskStarted };
}

async function oneRun(run: number) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-first-'));
  const t0 = nowMs();
  const stack = await startStack(
    { dataDir, host: '127.0.0.1', ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 }, ui: false, serviceEnv: { STRAND_LOG_LEVEL: 'warn', STRAND_SCRIPTED_DELTA_DELAY_MS: '0' }, instances: { worker: Number(process.env.BENCH_WORKERS ?? 2) } },
    () => undefined,
    { warmUp: WARM_UP },
  );
  const readyAfter = nowMs() - t0;
  progress(`run ${run}: ready after ${Math.round(readyAfter)} ms`);
  const connection = await Connection.connect({ address: stack.urls.temporal });
  try {
    const first = await promptOnce(stack.urls.gateway, 'first prompt');
    const second = await promptOnce(stack.urls.gateway, 'second prompt');
    const client = new Client({ connection });
    return { start_to_ready_ms: readyAfter, first, second, first_breakdown: await firstTaskBreakdown(client, first.sessionId), second_breakdown: await firstTaskBreakdown(client, second.sessionId) };
  } finally {
    await connection.close();
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const runs: Awaited<ReturnType<typeof oneRun>>[] = [];
  for (let r = 1; r <= RUNS; r++) runs.push(await oneRun(r));
  const med = (pick: (r: (typeof runs)[number]) => number) => Math.round(median(runs.map(pick)));
  console.log(
    JSON.stringify(
      {
        bench: 'first-prompt',
        runs: RUNS,
        stack: `1 gateway, ${process.env.BENCH_WORKERS ?? 2} worker(s), 1 store, fresh data dir per run, scripted/echo without delay`,
        warm_up: WARM_UP,
        start_to_ready_ms: med((r) => r.start_to_ready_ms),
        first_prompt: {
          prompt_to_202_ms: med((r) => r.first.prompt_to_202_ms),
          prompt_to_turn_finished_ms: med((r) => r.first.prompt_to_turn_finished_ms),
          workflow_started_to_task_picked_up_ms: med((r) => r.first_breakdown.workflow_started_to_task_picked_up_ms),
          task_picked_up_to_completed_ms: med((r) => r.first_breakdown.task_picked_up_to_completed_ms),
        },
        second_prompt: {
          prompt_to_202_ms: med((r) => r.second.prompt_to_202_ms),
          prompt_to_turn_finished_ms: med((r) => r.second.prompt_to_turn_finished_ms),
          workflow_started_to_task_picked_up_ms: med((r) => r.second_breakdown.workflow_started_to_task_picked_up_ms),
          task_picked_up_to_completed_ms: med((r) => r.second_breakdown.task_picked_up_to_completed_ms),
        },
      },
      null,
      2,
    ),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
