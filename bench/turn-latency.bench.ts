import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createScriptedProvider } from '../activities/providers/scripted';
import { sessionWorkflowId, turnWorkflowId } from '../contracts/workflow-ids';
import { startStack } from '../infra/stack/stack';
import { openSse, type SseConnection } from '../test/harness/sse-client';
import { median, nowMs } from './stats';

/**
 * Turn latency over the real local stack (issue 7's probe): for N sequential turns on one session,
 * HTTP prompt → 202, → first `message.delta` at an SSE client, → `turn.finished`, → `agent.state idle`,
 * plus how many prompts sent right after `idle` were refused (must be 0). Where the time goes is read
 * from the Temporal histories (update accepted → child turn started → model activity started). The
 * same-run baseline is the same provider call made in-process, without Temporal or NATS.
 * Run: `npm run bench:turns` (BENCH_TURNS, BENCH_RUNS to change the counts). Prints one JSON document.
 */
const TURNS = Number(process.env.BENCH_TURNS ?? 20);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const progress = (what: string) => console.error(`[bench] ${what}`);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return +(s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN).toFixed(1);
};
const summary = (xs: number[]) => ({ p50: pct(xs, 0.5), p99: pct(xs, 0.99) });

async function next(conn: SseConnection, match: (event: string, data: Record<string, unknown>) => boolean): Promise<number> {
  for (;;) {
    const e = await conn.next(30_000);
    if (!e) throw new Error('event stream ended');
    if (match(e.event, JSON.parse(e.data))) return nowMs();
  }
}

async function baselineInProcess(): Promise<number[]> {
  const provider = createScriptedProvider();
  const xs: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const t0 = nowMs();
    for await (const chunk of provider.stream({ model: 'echo', system: '', tools: [], thinking_level: 'off', signal: new AbortController().signal, messages: [{ role: 'user', content: [{ type: 'text', text: `probe ${i}` }] }] })) {
      if (chunk.type === 'text_delta') break;
    }
    xs.push(nowMs() - t0);
  }
  return xs;
}

/** Milliseconds between history events of one turn (ms timestamps of the server). */
async function historyBreakdown(client: Client, sessionId: string, turns: number) {
  const session = await client.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory();
  const accepted = (session.events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).map((e) => Number(e.eventTime?.seconds ?? 0) * 1000 + Math.round((e.eventTime?.nanos ?? 0) / 1e6));
  const toChild: number[] = [];
  const toModel: number[] = [];
  for (let n = 1; n <= Math.min(turns, accepted.length); n++) {
    const h = await client.workflow.getHandle(turnWorkflowId(sessionId, n)).fetchHistory();
    const at = (pred: (e: NonNullable<typeof h.events>[number]) => boolean) => {
      const e = (h.events ?? []).find(pred);
      return e ? Number(e.eventTime?.seconds ?? 0) * 1000 + Math.round((e.eventTime?.nanos ?? 0) / 1e6) : NaN;
    };
    const started = at((e) => !!e.workflowExecutionStartedEventAttributes);
    const modelStarted = at((e) => !!e.activityTaskStartedEventAttributes);
    toChild.push(started - accepted[n - 1]!);
    toModel.push(modelStarted - started);
  }
  return { update_accepted_to_turn_started_ms: summary(toChild), turn_started_to_model_activity_started_ms: summary(toModel) };
}

async function oneRun(base: string, temporal: Client) {
  const created = (await (await fetch(`${base}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_path: os.tmpdir() }) })).json()) as { session_id: string };
  const sid = created.session_id;
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  const m = { accept: [] as number[], first_delta: [] as number[], finished: [] as number[], idle: [] as number[] };
  let refused = 0;
  for (let i = 0; i < TURNS; i++) {
    const t0 = nowMs();
    const res = await fetch(`${base}/api/sessions/${sid}/prompt`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: `probe ${i}` }) });
    const t1 = nowMs();
    await res.text();
    if (res.status !== 202) {
      refused++;
      continue;
    }
    const firstDelta = await next(events, (ev) => ev === 'message.delta');
    const finished = await next(events, (ev) => ev === 'turn.finished');
    const idle = await next(events, (ev, d) => ev === 'agent.state' && d.state === 'idle');
    m.accept.push(t1 - t0);
    m.first_delta.push(firstDelta - t0);
    m.finished.push(finished - t0);
    m.idle.push(idle - t0);
  }
  events.close();
  return { m, refused, where: await historyBreakdown(temporal, sid, TURNS) };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-'));
  progress('starting the stack');
  const stack = await startStack(
    { dataDir, host: '127.0.0.1', ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 }, ui: false, serviceEnv: { STRAND_LOG_LEVEL: 'warn', STRAND_SCRIPTED_DELTA_DELAY_MS: '0' } },
    () => undefined,
  );
  const connection = await Connection.connect({ address: stack.urls.temporal });
  const temporal = new Client({ connection });
  try {
    const runs: Awaited<ReturnType<typeof oneRun>>[] = [];
    for (let r = 0; r < RUNS; r++) {
      progress(`run ${r + 1}/${RUNS}: ${TURNS} turns`);
      runs.push(await oneRun(stack.urls.gateway, temporal));
    }
    const baseline = await baselineInProcess();
    const med = (pick: (r: (typeof runs)[number]) => number) => +median(runs.map(pick)).toFixed(1);
    const firstDeltaP50 = med((r) => pct(r.m.first_delta, 0.5));
    const baselineP50 = pct(baseline, 0.5);
    const out = {
      bench: 'turn-latency',
      turns_per_run: TURNS,
      runs: RUNS,
      provider: 'scripted/echo (no delay)',
      prompt_to_202_ms: { p50: med((r) => pct(r.m.accept, 0.5)), p99: med((r) => pct(r.m.accept, 0.99)) },
      prompt_to_first_delta_ms: { p50: firstDeltaP50, p99: med((r) => pct(r.m.first_delta, 0.99)) },
      prompt_to_turn_finished_ms: { p50: med((r) => pct(r.m.finished, 0.5)), p99: med((r) => pct(r.m.finished, 0.99)) },
      prompt_to_idle_ms: { p50: med((r) => pct(r.m.idle, 0.5)), p99: med((r) => pct(r.m.idle, 0.99)) },
      prompts_refused_after_idle: runs.reduce((n, r) => n + r.refused, 0),
      baseline_in_process_first_delta_ms: summary(baseline),
      first_delta_overhead_p50_ms: +(firstDeltaP50 - baselineP50).toFixed(1),
      where_the_time_goes: runs[runs.length - 1]!.where,
    };
    console.log(JSON.stringify(out, null, 2));
  } finally {
    await connection.close();
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
