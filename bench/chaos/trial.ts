import { reconnectDelayMs } from '../../clients/core/event-follower';
import { followSse, type ResumingSse } from '../../test/harness/resuming-sse-client';
import type { LogLine } from './chaos-stack';
import { judgeTrial, type TrialVerdict } from './checks';
import type { ChaosConfig } from './config';
import type { FaultRecord } from './fault';
import { authHeaders, call as callGateway, replayFinished, storedEntries, whileUnavailable } from './gateway-api';
import { promptMarker, type ChaosProvider, type TrialPlan } from './provider-script';
import { recoveryTimes, type RecoveryTimes } from './recovery';
import type { ChaosTarget, TrialScenario } from './target';
import { TurnWatcher } from './turn-watcher';

/** Any id outside the catalog would do; a catalog id gives the turn real limits and prices. */
const MODEL = 'openai/gpt-4.1-mini';

export interface TrialContext {
  target: ChaosTarget;
  provider: ChaosProvider;
  scenario: TrialScenario;
  config: ChaosConfig;
  random: () => number;
  workspace: string;
  index: number;
}

/** One trial as chaos.json keeps it. Times are ms; `*_at` are from the first prompt's 202. */
export interface TrialRecord {
  scenario: string;
  trial: number;
  session_id?: string;
  fault_point?: string;
  fault?: { at: number; down_ms: number; restart_ms?: number; up_at?: number; error?: string };
  recovery: RecoveryTimes;
  /** When each delta of the faulted turn reached the client, so that other figures can be drawn later. */
  delta_arrivals: number[];
  turn_finished_at?: number;
  /** How many times the provider was asked for each step of the faulted turn (1 = no retry). */
  provider_requests: number[];
  stream_resets: number;
  /** 503s the next prompt got (and asked again after their Retry-After) before its answer. */
  next_prompt_503s: number;
  reconnects: number;
  drops: string[];
  verdict: TrialVerdict;
  /** What stopped the trial early, if anything (a wait that timed out, a request refused). */
  error?: string;
  /** For a failed trial: the client's event stream and the services' warnings around it. */
  evidence?: { timeline: string; logs: string[] };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `send` to the first of `bases` that takes the connection (one refused goes on to the next). */
async function callFirstUp<T>(bases: string[], send: (base: string) => Promise<T>): Promise<T> {
  for (const [i, b] of bases.entries()) {
    try {
      return await send(b);
    } catch (err) {
      if (i === bases.length - 1) throw err;
    }
  }
  throw new Error('no gateway');
}
const round = (ms: number | undefined) => (ms === undefined ? undefined : Math.round(ms));

/** Services' lines worth reading next to a failure: warnings, errors, exits and restarts. */
function notableLogs(lines: LogLine[], from: number, to: number): string[] {
  const out: string[] = [];
  let continuation = 0;
  for (const l of lines) {
    if (l.at < from || l.at > to) continue;
    // A multi-line record (the SDK's pretty-printed failures) keeps its next few lines: the cause is there.
    if (/"level":(40|50|60)|\bwarn|\berror|exited|restart|killed/i.test(l.line)) continuation = 4;
    else if (!(continuation > 0 && /^\s/.test(l.line))) continuation = 0;
    if (continuation-- > 0) out.push(`+${Math.round(l.at - from)}ms [${l.service}] ${l.line.slice(0, 400)}`);
  }
  return out.slice(-40);
}

/** Waits for the random point of the turn where the fault lands; says which point it was. */
async function reachFaultPoint(ctx: TrialContext, watcher: TurnWatcher, turn: string, plan: TrialPlan): Promise<string> {
  const { config, random } = ctx;
  if (ctx.scenario.mode === 'stream') {
    const k = 3 + Math.floor(random() * (Math.floor(config.words * 0.7) - 3));
    await watcher.until(() => watcher.deltas(turn).length >= k, 60_000, `delta ${k} of ${turn}`);
    return `after delta ${k} of ${config.words}`;
  }
  await watcher.until(() => watcher.events.some((e) => e.event === 'tool.output' && e.data.tool_call_id === plan.callId), 60_000, 'the shell command’s first output');
  // The command runs toolTicks × 0.5 s from its first output; land at least 1.5 s before its end.
  const delay = Math.floor(random() * Math.max(0, config.toolTicks * 500 - 1_500));
  await sleep(delay);
  return `${(delay / 1000).toFixed(1)} s into the shell command`;
}

/**
 * One trial: a fresh session, an SSE client following it from its first event (reconnecting with
 * Last-Event-ID whenever its connection drops), a prompt whose answer streams slowly, the fault at
 * a random point of it, the turn's end, the next prompt at once, then the checks (checks.ts) against
 * the store, a fresh replay of the stream and what the provider sent.
 */
export async function runTrial(ctx: TrialContext): Promise<TrialRecord> {
  const { target: chaos, provider, scenario, config, index } = ctx;
  const { base, token } = chaos;
  const call = <T = Record<string, unknown>>(b: string, method: string, route: string, body?: unknown) => callGateway<T>(b, method, route, body, 15_000, token);
  const id = `${scenario.id}.${index}`;
  const plan: TrialPlan = {
    id,
    mode: scenario.mode,
    words: config.words,
    frameDelayMs: config.frameDelayMs,
    command: `for i in $(seq 1 ${config.toolTicks}); do echo "${id} tick $i"; sleep 0.5; done`,
    callId: `call_chaos_${index}`,
  };
  provider.register(plan);
  const watcher = new TurnWatcher();
  const started = performance.now();
  let promptAt = started;
  let sessionId: string | undefined;
  let client: ResumingSse | undefined;
  let faultAt: number | undefined;
  let faultPoint: string | undefined;
  let finishedAt: number | undefined;
  let fault: Promise<FaultRecord | undefined> = Promise.resolve(undefined);
  const turns: { first: string; next?: string } = { first: '' };
  const nextPrompt: { status: number; finished: boolean; answer?: string; unavailable?: number } = { status: 0, finished: false };
  let error: string | undefined;

  try {
    const created = await call<{ session_id: string }>(base, 'POST', '/api/sessions', { project_path: ctx.workspace, model: MODEL });
    if (created.status !== 201) throw new Error(`POST /api/sessions answered ${created.status}: ${JSON.stringify(created.body)}`);
    const sid = (sessionId = created.body.session_id);
    if (scenario.mode === 'tool') {
      const set = await call(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { always_allow: ['shell_exec'] } });
      if (set.status !== 200) throw new Error(`PATCH settings answered ${set.status}: ${JSON.stringify(set.body)}`);
    }
    // Reconnecting as strand's clients do (clients/core's backoff), to the next gateway when there are several.
    const bases = chaos.bases?.length ? chaos.bases : [base];
    client = followSse(bases.map((b) => `${b}/api/sessions/${sid}/events`), watcher.onEvent, { after: '0', headers: authHeaders(token), retryMs: (n) => reconnectDelayMs(n) });
    await Promise.race([client.connected, sleep(15_000).then(() => Promise.reject(new Error('the event stream did not open within 15 s')))]);

    const first = await call<{ turn_id: string }>(base, 'POST', `/api/sessions/${sid}/prompt`, { text: `Answer at length. ${promptMarker(id, 'p1')}`, request_id: `${id}.p1` });
    if (first.status !== 202) throw new Error(`the first prompt answered ${first.status}: ${JSON.stringify(first.body)}`);
    promptAt = performance.now();
    turns.first = first.body.turn_id;

    faultPoint = await reachFaultPoint(ctx, watcher, turns.first, plan);
    const activity = scenario.mode === 'tool' ? 'runTool' : 'streamModelStep';
    const target = await chaos.aim(scenario, sid, turns.first, activity);
    const how = scenario.fault === 'kill' ? 'killed' : scenario.fault === 'stop' ? 'stopped' : `faulted (${scenario.fault})`;
    if (target) faultPoint += `, ${target}${scenario.failover && scenario.component === 'worker' ? ` (running ${activity})` : ''} ${how}`;
    faultAt = performance.now();
    fault = chaos.inject(scenario, target);
    const budget = chaos.downMs(scenario) + config.finishTimeoutMs;
    await watcher.until(() => watcher.finished(turns.first).length > 0, budget, `turn.finished of ${turns.first}`);
    finishedAt = performance.now();

    // Right after the end, as a person typing ahead would: the session must take it.
    // To a gateway that is up: with two, the killed one may not be back yet.
    // A 503 (the store or NATS mid-election) is asked again after its Retry-After, as clients do.
    const next = await callFirstUp(chaos.bases?.length ? chaos.bases : [base], (b) =>
      whileUnavailable(() => call<{ turn_id: string }>(b, 'POST', `/api/sessions/${sid}/prompt`, { text: `And now briefly. ${promptMarker(id, 'p2')}`, request_id: `${id}.p2` })),
    );
    nextPrompt.status = next.status;
    nextPrompt.unavailable = next.unavailable;
    if (next.status === 202) {
      const nextTurn = (turns.next = next.body.turn_id);
      await watcher.until(() => watcher.finished(nextTurn).length > 0, 60_000, `turn.finished of ${nextTurn}`);
      nextPrompt.finished = watcher.finished(nextTurn)[0]?.data.outcome === 'done';
    } else nextPrompt.answer = JSON.stringify(next.body).slice(0, 300);
  } catch (err) {
    error = (err as Error).message;
  }
  // The checks read the store and the stream: the faulted service must be back first.
  const faultRecord = await fault.catch((err: unknown) => ({ at: faultAt ?? 0, downAt: faultAt ?? 0, error: (err as Error).message }) as FaultRecord);

  const stored = sessionId ? await storedEntries(base, sessionId, token) : { error: 'no session' };
  const replay = sessionId ? await replayFinished(base, sessionId, turns.next ?? turns.first, 20_000, token) : { error: 'no session' };
  client?.close();
  const truth = { first: provider.truth(id, 'p1'), next: provider.truth(id, 'p2') };
  const expectedEntries = [
    `${turns.first}:user`,
    `${turns.first}:s0:assistant`,
    ...(scenario.mode === 'tool' ? [`${turns.first}:s0:tool:${plan.callId}`, `${turns.first}:s1:assistant`] : []),
    ...(turns.next ? [`${turns.next}:user`, `${turns.next}:s0:assistant`] : []),
  ];
  const verdict = judgeTrial({
    turns,
    expectedEntries,
    truth,
    stored,
    client: {
      first: watcher.text.texts(turns.first),
      next: turns.next ? watcher.text.texts(turns.next) : [],
      finished: watcher.events.filter((e) => e.event === 'turn.finished').map((e) => ({ turn: String(e.data.turn_id), outcome: String(e.data.outcome) })),
      duplicateDeltaIds: watcher.duplicateDeltaIds,
    },
    replay,
    nextPrompt,
  });
  if (error) {
    verdict.passed = false;
    verdict.problems.unshift(error);
  }
  if (faultRecord?.error) {
    verdict.passed = false;
    verdict.problems.push(`the fault on ${scenario.component}: ${faultRecord.error}`);
  }

  const rel = (t: number | undefined) => round(t === undefined ? undefined : t - promptAt);
  const recovery = faultAt === undefined ? {} : recoveryTimes(watcher.deltas(turns.first).map((e) => e.at), faultAt, finishedAt);
  return {
    scenario: scenario.id,
    trial: index,
    session_id: sessionId,
    fault_point: faultPoint,
    fault: faultRecord && {
      at: rel(faultRecord.at)!,
      down_ms: Math.round(faultRecord.downAt - faultRecord.at),
      restart_ms: faultRecord.upAt !== undefined && faultRecord.restartAt !== undefined ? Math.round(faultRecord.upAt - faultRecord.restartAt) : undefined,
      up_at: rel(faultRecord.upAt),
      error: faultRecord.error,
    },
    recovery: { silence: round(recovery.silence), faultToResume: round(recovery.faultToResume), faultToFinished: round(recovery.faultToFinished) },
    delta_arrivals: watcher.deltas(turns.first).map((e) => rel(e.at)!),
    turn_finished_at: rel(finishedAt),
    provider_requests: truth.first.map((s) => s.requests),
    stream_resets: watcher.events.filter((e) => e.event === 'stream.reset').length,
    next_prompt_503s: nextPrompt.unavailable ?? 0,
    reconnects: client?.reconnects() ?? 0,
    drops: (client?.drops ?? []).map((d) => `+${Math.round(d.at - promptAt)}ms ${d.reason}`).slice(0, 20),
    verdict,
    ...(error ? { error } : {}),
    ...(verdict.passed ? {} : { evidence: { timeline: watcher.timeline(), logs: notableLogs(chaos.recent, started, performance.now()) } }),
  };
}
