import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { connect } from 'nats';
import { startTestStack, type TestStack } from '../test/harness/stack-fixture';
import { medianOfRuns } from './capacity/median-of-runs';
import { treeArg } from './capacity/process-cost';
import { cpuOf, rssKibOf, SERVICES, snapshot, type Snapshot } from './capacity/snapshot';
import { diff, historyCounts, per, total, type Counts } from './capacity/temporal-actions';
import { openWatchedSession, runTurns, startIdleSessions, writeTypicalTurn } from './capacity/typical-turn';

/**
 * The unit costs behind docs/scaling.md, measured over a real local stack: SESSIONS sessions, each
 * watched by one SSE client, run TURNS turns in all (sessions in parallel, turns of a session one after
 * another) of one typical shape (a prompt, one read_file call, a ~100-word streamed answer). Per turn:
 * CPU ms of each process (its whole process tree, from /proc), Temporal billable actions and history
 * events (from the histories) and server requests by operation (from the dev server's metrics),
 * JetStream bytes and messages of the agent-events stream and the store's stream, bytes the store and
 * Temporal's SQLite file grew by. Then resident memory per idle session (IDLE_SESSIONS idle session
 * workflows). Median of RUNS runs, for each store adapter in BENCH_STORE_ADAPTERS. Prints JSON.
 * Run: `npm run bench:capacity`.
 */
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 4);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const IDLE_SESSIONS = Number(process.env.BENCH_IDLE_SESSIONS ?? 500);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10);
const DELTA_DELAY_MS = process.env.BENCH_DELTA_DELAY_MS ?? '2';
const ADAPTERS = (process.env.BENCH_STORE_ADAPTERS ?? 'fs,jetstream').split(',').filter(Boolean);
const progress = (what: string) => console.error(`[bench] ${what}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number, digits = 1) => +x.toFixed(digits);

/** CPU ms per second of each process while the stack has nothing to do (polls, timers, heartbeats). */
async function idleCpuRate(stack: TestStack): Promise<Counts> {
  const before = cpuOf(stack);
  await sleep(IDLE_SECONDS * 1000);
  const after = cpuOf(stack);
  return Object.fromEntries(SERVICES.map((s) => [s, round((after[s] - before[s]) / IDLE_SECONDS, 2)]));
}

function costPerTurn(before: Snapshot, after: Snapshot, turns: number, idle: Counts) {
  const seconds = (after.at - before.at) / 1000;
  const cpu = Object.fromEntries(SERVICES.map((s) => [s, round((after.cpuMs[s] - before.cpuMs[s]) / turns, 2)]));
  const cpuBusy = Object.fromEntries(SERVICES.map((s) => [s, round((after.cpuMs[s] - before.cpuMs[s] - idle[s]! * seconds) / turns, 2)]));
  const streams = Object.fromEntries(
    Object.entries(after.streams).map(([name, a]) => {
      const b = before.streams[name] ?? { bytes: 0, messages: 0, lastSeq: 0 };
      return [name, { bytes_held: round((a.bytes - b.bytes) / turns), messages_held: round((a.messages - b.messages) / turns, 2), writes: round((a.lastSeq - b.lastSeq) / turns, 2) }];
    }),
  );
  return {
    turns_per_second: round(turns / seconds, 2),
    cpu_ms_per_turn: { ...cpu, total: round(Object.values(cpu).reduce((a, b) => a + b, 0), 2) },
    cpu_ms_per_turn_above_idle: cpuBusy,
    jetstream_per_turn: streams,
    store_dir_bytes_per_turn: round((after.storeDirBytes - before.storeDirBytes) / turns),
    temporal_sqlite_bytes_per_turn: round((after.temporalDbBytes - before.temporalDbBytes) / turns),
    temporal_server_requests_per_turn: per(diff(after.counters, before.counters), turns),
  };
}

async function oneRun(stack: TestStack, ctx: { nc: Awaited<ReturnType<typeof connect>>; temporal: Client; metricsUrl: string; workspace: string; idle: Counts }, label: string, wanted = TURNS) {
  const base = stack.urls.gateway;
  const sessions = await Promise.all(Array.from({ length: SESSIONS }, () => openWatchedSession(base, ctx.workspace)));
  const perSession = Math.ceil(wanted / SESSIONS);
  const turns = perSession * SESSIONS;
  const before = await snapshot(stack, ctx.nc, ctx.metricsUrl);
  await Promise.all(sessions.map((s, i) => runTurns(base, s, perSession, `${label} session ${i}`)));
  const after = await snapshot(stack, ctx.nc, ctx.metricsUrl);
  for (const s of sessions) s.events.close();
  const actions: Counts = {};
  const events: Counts = {};
  let activitySeconds = 0;
  for (const s of sessions) {
    const h = await historyCounts(ctx.temporal, s.sessionId, perSession);
    for (const [k, v] of Object.entries(h.actions)) actions[k] = (actions[k] ?? 0) + v;
    for (const [k, v] of Object.entries(h.events)) events[k] = (events[k] ?? 0) + v;
    activitySeconds += h.activitySeconds;
  }
  return {
    ...costPerTurn(before, after, turns, ctx.idle),
    temporal_actions_per_turn: { ...per(actions, turns), total_in_history: round(total(actions) / turns, 2) },
    activity_seconds_per_turn: round(activitySeconds / turns, 3),
    temporal_history_events_per_turn: { ...per(events, turns), total: round(total(events) / turns, 2) },
  };
}

/** Resident memory each process gains per idle session workflow (started, then left alone). */
async function idleSessionMemory(stack: TestStack, workspace: string) {
  await sleep(3_000);
  const before = rssKibOf(stack);
  await startIdleSessions(stack.urls.gateway, workspace, IDLE_SESSIONS);
  await sleep(5_000);
  const after = rssKibOf(stack);
  return {
    sessions: IDLE_SESSIONS,
    rss_mib_before: Object.fromEntries(SERVICES.map((s) => [s, round(before[s] / 1024)])),
    rss_mib_after: Object.fromEntries(SERVICES.map((s) => [s, round(after[s] / 1024)])),
    kib_per_idle_session: Object.fromEntries(SERVICES.map((s) => [s, round((after[s] - before[s]) / IDLE_SESSIONS)])),
  };
}

async function measureAdapter(adapter: string) {
  const scriptsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-capacity-scripts-'));
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-capacity-ws-'));
  const { answerWords } = writeTypicalTurn(scriptsDir, workspace);
  progress(`[${adapter}] starting the stack`);
  const stack = await startTestStack({
    STRAND_SCRIPTS_DIR: scriptsDir,
    STRAND_SCRIPTED_DELTA_DELAY_MS: DELTA_DELAY_MS,
    STRAND_RATE_LIMIT: '100000',
    STRAND_STORE_ADAPTER: adapter,
  });
  const nc = await connect({ servers: stack.urls.nats });
  const connection = await Connection.connect({ address: stack.urls.temporal });
  const temporal = new Client({ connection });
  try {
    const metricsPort = treeArg(stack.process('temporal').pid!, '--metrics-port');
    if (!metricsPort) throw new Error('the Temporal dev server was started without --metrics-port');
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    progress(`[${adapter}] idle CPU over ${IDLE_SECONDS} s`);
    const idle = await idleCpuRate(stack);
    // One unmeasured turn per session loads the bundle's code paths and JIT before the first run.
    await oneRun(stack, { nc, temporal, metricsUrl, workspace, idle }, 'warm-up', SESSIONS).catch((err: unknown) => {
      throw new Error(`warm-up failed: ${(err as Error).message}\n${stack.output.slice(-30).join('\n')}`);
    });
    const runs = [];
    for (let r = 0; r < RUNS; r++) {
      progress(`[${adapter}] run ${r + 1}/${RUNS}: ${TURNS} turns over ${SESSIONS} sessions`);
      runs.push(await oneRun(stack, { nc, temporal, metricsUrl, workspace, idle }, `run ${r}`));
    }
    progress(`[${adapter}] ${IDLE_SESSIONS} idle sessions`);
    const memory = await idleSessionMemory(stack, workspace);
    return { answer_words: answerWords, idle_cpu_ms_per_s: idle, per_turn: medianOfRuns(runs as never), idle_sessions: memory };
  } finally {
    await connection.close();
    await nc.close();
    await stack.teardown();
    fs.rmSync(scriptsDir, { recursive: true, force: true });
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

async function main() {
  const adapters: Record<string, unknown> = {};
  for (const adapter of ADAPTERS) adapters[adapter] = await measureAdapter(adapter);
  const out = {
    bench: 'capacity',
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, mem_gib: round(os.totalmem() / 2 ** 30) },
    shape: 'prompt → step 1 (one line + read_file) → tool → step 2 (~100-word answer), scripted provider',
    turns_per_run: TURNS,
    sessions_in_parallel: SESSIONS,
    runs: RUNS,
    delta_delay_ms: Number(DELTA_DELAY_MS),
    adapters,
  };
  console.log(JSON.stringify(out, null, 2));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
