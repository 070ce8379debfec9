import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startStack, type Stack } from '../infra/stack/stack';
import { openSse, type SseConnection } from '../test/harness/sse-client';
import { median, ms, nowMs, percentile } from './stats';
import { epochMs, hopFigures, type TurnTimes } from './temporal-floor/hops';
import { sessionWorkflowId, turnWorkflowId } from '../contracts/workflow-ids';
import { floorPromptUpdate, floorTurnsEndedQuery, type FloorActivities } from './temporal-floor/floor-workflows';

/**
 * Temporal's own floor under strand's turn, on this machine, in the same run as strand's figures.
 * The floor is the least a turn can be on strand's architecture (bench/temporal-floor/): a prompt
 * update to a session workflow, a child turn workflow, its model-step activity (and a tool activity
 * and a second model step, for throughput), run by a worker in this process on the stack's own
 * Temporal dev server — no store, no events, no provider. Figures:
 * - latency, one session, turns one after another: prompt → model step started (floor) next to
 *   strand's prompt → first `message.delta` at an SSE client (scripted/echo, no delay);
 * - throughput: CONCURRENCY sessions each running turns with one tool call for SECONDS, floor turns/s
 *   with the Temporal server's CPU milliseconds per turn; then strand's, the same count of sessions for
 *   the same time, each turn a scripted model (`scripted/read-then-answer`) that calls read_file once
 *   and then answers, watched over SSE until the session is idle again, with the CPU milliseconds per
 *   turn of each of the stack's processes, and strand's turns/s as a share of the floor's.
 * Run: `npm run bench:temporal-floor` (BENCH_RUNS, BENCH_TURNS, BENCH_CONCURRENCY, BENCH_SECONDS,
 * BENCH_GAP_MS: a pause before each latency turn, both sides; 0 by default, a client that prompts the
 * moment it hears idle. With a pause, what the server still does for the turn before is out of the way).
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TURNS = Number(process.env.BENCH_TURNS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 0);
const gap = () => (GAP_MS > 0 ? new Promise((r) => setTimeout(r, GAP_MS)) : Promise.resolve());
const TASK_QUEUE = 'strand-temporal-floor';
const progress = (what: string) => console.error(`[bench] ${what}`);
const pct = (xs: number[]) => ({ p50: ms(percentile(xs, 50)), p99: ms(percentile(xs, 99)) });

/** Model steps the floor's activities saw start, by turn key (resolved when the step starts). */
const stepStarts = new Map<string, (at: { mono: number; epoch: number }) => void>();
const activities: FloorActivities = {
  step: async (key, kind) => {
    if (kind === 'model') stepStarts.get(key)?.({ mono: nowMs(), epoch: epochMs() });
    stepStarts.delete(key);
  },
};

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** The CPU milliseconds process `pid` has used so far (Linux /proc; NaN elsewhere). */
function cpuMsOf(pid: number | string | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
  } catch {
    return NaN;
  }
}

/** The CPU milliseconds the stack's Temporal server has used so far (Linux /proc; NaN elsewhere). */
function temporalCpuMs(stack: Stack): number {
  try {
    const watchdog = stack.process('temporal').pid;
    // The watchdog runs the server binary as its child: count the binary.
    return cpuMsOf(fs.readFileSync(`/proc/${watchdog}/task/${watchdog}/children`, 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return NaN;
  }
}

/** CPU milliseconds so far of the stack's processes that a turn runs through. */
function stackCpuMs(stack: Stack): Record<'temporal' | 'worker' | 'gateway' | 'store', number> {
  return { temporal: temporalCpuMs(stack), worker: cpuMsOf(stack.process('worker').pid), gateway: cpuMsOf(stack.process('gateway').pid), store: cpuMsOf(stack.process('store').pid) };
}

/** The scripted model of strand's throughput turns: read_file once, then an answer (activities/providers/scripts/). */
const TOOL_MODEL = 'scripted/read-then-answer';

/**
 * One strand turn with one tool call, as a client runs it: the prompt, then its events until the
 * session is idle again (the next prompt finds it free). Throws unless the turn ended `done` with one
 * tool result and two answers (the step that called the tool and the one after it).
 */
async function strandToolTurn(base: string, sid: string, events: SseConnection, i: number): Promise<void> {
  const res = await fetch(`${base}/api/sessions/${sid}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: `tool turn ${i}` }) });
  await res.text();
  if (res.status !== 202) throw new Error(`prompt answered ${res.status}`);
  let finished: { outcome: string } | undefined;
  let toolResults = 0;
  let answers = 0;
  for (;;) {
    const e = await events.next(60_000);
    if (!e) throw new Error('event stream ended');
    if (e.event === 'tool.result') toolResults++;
    if (e.event === 'message.done') answers++;
    if (e.event === 'turn.finished') finished = JSON.parse(e.data) as { outcome: string };
    if (finished && e.event === 'agent.state' && (JSON.parse(e.data) as { state: string }).state === 'idle') break;
  }
  if (finished.outcome !== 'done' || toolResults !== 1 || answers !== 2) throw new Error(`a throughput turn ended ${finished.outcome} with ${toolResults} tool results and ${answers} answers, not done with 1 and 2`);
}

async function floorTurn(client: Client, sessionId: string, key: string, withTool: boolean): Promise<{ firstStep: number; accepted: number; times: TurnTimes }> {
  const started = new Promise<{ mono: number; epoch: number }>((resolve) => stepStarts.set(key, resolve));
  const sentAt = epochMs();
  const t0 = nowMs();
  const { turn } = await client.workflow.getHandle(sessionId).executeUpdate(floorPromptUpdate, { args: [{ key, withTool }] });
  const accepted = nowMs() - t0;
  const step = await started;
  const firstStep = step.mono - t0;
  await client.workflow.getHandle(`${sessionId}:turn:${turn}`).result();
  // Like a client waiting for `idle`: the next prompt goes once the session has taken the turn's end.
  while ((await client.workflow.getHandle(sessionId).query(floorTurnsEndedQuery)) < turn) await new Promise((r) => setTimeout(r, 2));
  return { firstStep, accepted, times: { sessionWorkflowId: sessionId, turnWorkflowId: `${sessionId}:turn:${turn}`, sentAt, firstAt: step.epoch } };
}

async function strandTurn(base: string, sid: string, events: SseConnection, i: number, hops: TurnTimes[]): Promise<number> {
  const sentAt = epochMs();
  const t0 = nowMs();
  const res = await fetch(`${base}/api/sessions/${sid}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: `probe ${i}` }) });
  await res.text();
  if (res.status !== 202) throw new Error(`prompt answered ${res.status}`);
  let firstDelta = NaN;
  for (;;) {
    const e = await events.next(30_000);
    if (!e) throw new Error('event stream ended');
    if (e.event === 'message.delta' && Number.isNaN(firstDelta)) {
      firstDelta = nowMs() - t0;
      // The session's i-th prompt is its turn i + 1 (a fresh session, turns one after another).
      hops.push({ sessionWorkflowId: sessionWorkflowId(sid), turnWorkflowId: turnWorkflowId(sid, i + 1), sentAt, firstAt: epochMs() });
    }
    if (e.event === 'agent.state' && (JSON.parse(e.data) as { state: string }).state === 'idle') return firstDelta;
  }
}

async function main() {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-floor-'));
  progress('starting the stack');
  const stack = await startStack(
    { dataDir, host: '127.0.0.1', ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 }, ui: false, serviceEnv: { STRAND_LOG_LEVEL: 'warn', STRAND_SCRIPTED_DELTA_DELAY_MS: '0' } },
    () => undefined,
  );
  const connection = await Connection.connect({ address: stack.urls.temporal });
  const client = new Client({ connection });
  const workerConnection = await NativeConnection.connect({ address: stack.urls.temporal });
  const workflowBundle = await bundleWorkflowCode({ workflowsPath: require.resolve('./temporal-floor/floor-workflows'), logger: { trace: () => undefined, debug: () => undefined, info: () => undefined, warn: () => undefined, error: console.error, log: () => undefined } });
  const worker = await Worker.create({ connection: workerConnection, taskQueue: TASK_QUEUE, workflowBundle, activities });
  const running = worker.run();
  const base = stack.urls.gateway;
  let n = 0;
  const newFloorSession = async () => (await client.workflow.start('floorSession', { taskQueue: TASK_QUEUE, workflowId: `floor-${process.pid}-${n++}` })).workflowId;
  try {
    const floorFirst: number[][] = [];
    const floorAccepted: number[][] = [];
    const strandFirst: number[][] = [];
    const floorTimes: TurnTimes[] = [];
    const strandTimes: TurnTimes[] = [];
    for (let r = 0; r < RUNS; r++) {
      progress(`latency run ${r + 1}/${RUNS}: ${TURNS} floor turns, then ${TURNS} strand turns`);
      const fs_ = await newFloorSession();
      const first: number[] = [];
      const acc: number[] = [];
      for (let i = 0; i < TURNS; i++) {
        await gap();
        const t = await floorTurn(client, fs_, `lat-${r}-${i}`, false);
        first.push(t.firstStep);
        acc.push(t.accepted);
        floorTimes.push(t.times);
      }
      floorFirst.push(first);
      floorAccepted.push(acc);
      const { session_id: sid } = (await (await fetch(`${base}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_path: os.tmpdir() }) })).json()) as { session_id: string };
      const events = await openSse(`${base}/api/sessions/${sid}/events`);
      const ours: number[] = [];
      for (let i = 0; i < TURNS; i++) {
        await gap();
        ours.push(await strandTurn(base, sid, events, i, strandTimes));
      }
      events.close();
      strandFirst.push(ours);
    }
    progress('reading the turns\' histories for the path\'s hops');
    const hops = { floor: await hopFigures(client, floorTimes), strand: await hopFigures(client, strandTimes) };
    progress(`throughput: ${CONCURRENCY} floor sessions, turns with one tool call, ${SECONDS} s`);
    const sessions = await Promise.all(Array.from({ length: CONCURRENCY }, newFloorSession));
    const cpu0 = temporalCpuMs(stack);
    const t0 = nowMs();
    let turns = 0;
    await Promise.all(
      sessions.map(async (sid, s) => {
        for (let i = 0; nowMs() - t0 < SECONDS * 1000; i++) {
          await floorTurn(client, sid, `tp-${s}-${i}`, true);
          turns++;
        }
      }),
    );
    const seconds = (nowMs() - t0) / 1000;
    const cpu = temporalCpuMs(stack) - cpu0;
    progress(`throughput: ${CONCURRENCY} strand sessions, turns with one tool call (${TOOL_MODEL}), ${SECONDS} s`);
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-floor-ws-'));
    fs.writeFileSync(path.join(workspace, 'README.md'), '# a workspace for the throughput turns\n');
    const strandSessions = await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        const created = await fetch(`${base}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_path: workspace, model: TOOL_MODEL }) });
        const { session_id } = (await created.json()) as { session_id: string };
        return { sid: session_id, events: await openSse(`${base}/api/sessions/${session_id}/events`) };
      }),
    );
    // One turn each first: the first turn of a session is not what a busy stack repeats.
    await Promise.all(strandSessions.map(({ sid, events }) => strandToolTurn(base, sid, events, -1)));
    const stackCpu0 = stackCpuMs(stack);
    const s0 = nowMs();
    let strandTurns = 0;
    await Promise.all(
      strandSessions.map(async ({ sid, events }) => {
        for (let i = 0; nowMs() - s0 < SECONDS * 1000; i++) {
          await strandToolTurn(base, sid, events, i);
          strandTurns++;
        }
      }),
    );
    const strandSeconds = (nowMs() - s0) / 1000;
    const stackCpu1 = stackCpuMs(stack);
    for (const { events } of strandSessions) events.close();
    fs.rmSync(workspace, { recursive: true, force: true });
    const floorTps = turns / seconds;
    const strandTps = strandTurns / strandSeconds;
    const med = (runs: number[][], p: number) => ms(median(runs.map((xs) => percentile(xs, p))));
    console.log(
      JSON.stringify(
        {
          bench: 'temporal-floor',
          runs: RUNS,
          turns_per_run: TURNS,
          floor: 'update → session workflow → child turn workflow → activity, worker in the bench process, same dev server as the stack',
          floor_prompt_to_update_returned_ms: { p50: med(floorAccepted, 50), p99: med(floorAccepted, 99) },
          floor_prompt_to_model_step_started_ms: { p50: med(floorFirst, 50), p99: med(floorFirst, 99) },
          strand_prompt_to_first_delta_ms: { p50: med(strandFirst, 50), p99: med(strandFirst, 99) },
          strand_above_floor_p50_ms: ms(med(strandFirst, 50) - med(floorFirst, 50)),
          hops_ms: hops,
          floor_per_run: floorFirst.map(pct),
          strand_per_run: strandFirst.map(pct),
          throughput: {
            concurrency: CONCURRENCY,
            turn: 'one tool call (model step, tool step, model step)',
            floor_turns_per_s: +floorTps.toFixed(1),
            temporal_server_cpu_ms_per_turn: +(cpu / turns).toFixed(1),
            strand_turns_per_s: +strandTps.toFixed(1),
            strand_over_floor: +(strandTps / floorTps).toFixed(2),
            strand_cpu_ms_per_turn: Object.fromEntries(Object.entries(stackCpu1).map(([k, v]) => [k, +((v - stackCpu0[k as keyof typeof stackCpu0]) / strandTurns).toFixed(1)])),
          },
          issue_32_targets: { first_delta_over_floor: 1.5, turns_per_s_share_of_floor: 0.7 },
          strand_over_floor_first_delta: { p50: +(med(strandFirst, 50) / med(floorFirst, 50)).toFixed(2), p99: +(med(strandFirst, 99) / med(floorFirst, 99)).toFixed(2) },
          issue_8_targets: { first_delta_overhead_p50_ms: 30, first_delta_overhead_p99_ms: 100, turns_per_s: 20 },
          cores: os.cpus().length,
          gap_ms_before_each_latency_turn: GAP_MS,
          load_avg_1m_after: +os.loadavg()[0]!.toFixed(2),
        },
        null,
        2,
      ),
    );
  } finally {
    worker.shutdown();
    await running.catch(() => undefined);
    await workerConnection.close();
    await connection.close();
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
