import fs from 'node:fs';
import path from 'node:path';
import { httpEventDataSchema, type HttpEventData } from '../../contracts/http-events';
import { messagesPageSchema, modelChangedSchema, promptAcceptedReplySchema, sessionCreatedSchema, settingsReplySchema } from '../../contracts/http-replies';
import type { SseConnection } from '../../test/harness/sse-client';
import type { ComposeProject } from './compose-project';
import { CRASH_SCRIPT, FIRST_FILE, SECOND_FILE, SLOW_ANSWER, WRITE_SCRIPT, type Workspace } from './e2e-workspace';
import type { StrandHttp } from './strand-http';

export interface TurnFigures {
  first_turn_ms: number;
  second_turn_ms: number;
  kill_to_worker_running_ms: number;
  kill_to_worker_healthy_ms: number;
  kill_to_turn_resumed_ms: number;
  kill_to_turn_finished_ms: number;
}

interface Seen {
  at: number;
  data: HttpEventData;
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`check failed: ${what}`);
}

async function next(events: SseConnection, timeoutMs: number): Promise<Seen> {
  const e = await events.next(timeoutMs);
  if (!e) throw new Error('the event stream ended');
  return { at: Date.now(), data: httpEventDataSchema.parse(JSON.parse(e.data)) };
}

async function readUntilFinished(events: SseConnection, timeoutMs: number, seen: Seen[] = []): Promise<Seen[]> {
  for (;;) {
    const s = await next(events, timeoutMs);
    seen.push(s);
    if (s.data.type === 'turn.finished') return seen;
  }
}

function checkFileOnHost(ws: Workspace, file: { path: string; content: string }): void {
  const full = path.join(ws.project, file.path);
  check(fs.existsSync(full), `${full} exists on the host`);
  check(fs.readFileSync(full, 'utf8') === file.content, `${full} holds what the model wrote`);
  const st = fs.statSync(full);
  check(st.uid === ws.uid && st.gid === ws.gid, `${full} belongs to ${ws.uid}:${ws.gid} (the projects' owner), not ${st.uid}:${st.gid}`);
}

/** Which worker container runs the turn's model step now (running-worker.ts). */
export type WorkerOfStep = (sessionId: string, turnId: string) => Promise<string>;

/**
 * Two turns with tools on the compose stack. The first writes a file into the user's project (checked on
 * the host: content and owner). During the second, once its answer streams, the main process of the
 * worker container running that answer is killed with SIGKILL from the host (a crash: the restart
 * policy brings it back, unlike `docker kill`); the turn must then finish exactly once, with every
 * store entry written once, whichever worker ends it.
 */
export async function runTurns(http: StrandHttp, compose: ComposeProject, ws: Workspace, log: (line: string) => void, workerOfStep: WorkerOfStep): Promise<TurnFigures> {
  const { session_id: sid } = await http.call('POST', '/api/sessions', 201, sessionCreatedSchema, { project_path: ws.project, model: `scripted/${WRITE_SCRIPT}` });
  const settings = await http.call('PATCH', `/api/sessions/${sid}/settings`, 200, settingsReplySchema, { approval: { always_allow: ['write_file'] } });
  check(settings.approval.always_allow.includes('write_file'), 'the session allows write_file without asking');
  const events = await http.events(sid);
  try {
    // Turn 1: write_file, then an answer.
    const t1 = Date.now();
    const first = await http.call('POST', `/api/sessions/${sid}/prompt`, 202, promptAcceptedReplySchema, { text: 'Please write the file.' });
    const turn1 = await readUntilFinished(events, 120_000);
    const firstTurnMs = Date.now() - t1;
    const finished1 = turn1[turn1.length - 1]!.data;
    check(finished1.type === 'turn.finished' && finished1.outcome === 'done' && finished1.turn_id === first.turn_id, `turn ${first.turn_id} finished done (${JSON.stringify(finished1)})`);
    check(turn1.some((s) => s.data.type === 'tool.result' && s.data.status === 'success'), 'write_file succeeded');
    check(!turn1.some((s) => s.data.type === 'tool.call' && s.data.requires_approval), 'no tool call waited for approval');
    checkFileOnHost(ws, FIRST_FILE);
    log(`turn 1: write_file ran in the worker container; ${FIRST_FILE.path} is on the host, owned by ${ws.uid}:${ws.gid} (${firstTurnMs} ms)`);

    // Turn 2: killed mid-answer.
    await http.call('POST', `/api/sessions/${sid}/model`, 200, modelChangedSchema, { provider: 'scripted', model_id: CRASH_SCRIPT });
    const t2 = Date.now();
    const second = await http.call('POST', `/api/sessions/${sid}/prompt`, 202, promptAcceptedReplySchema, { text: 'Write the second file, then explain at length.' });
    const seen: Seen[] = [];
    let deltasAfterTool = 0;
    let toolDone = false;
    let worker: Promise<string> | undefined;
    while (deltasAfterTool < 5) {
      const s = await next(events, 60_000);
      seen.push(s);
      check(s.data.type !== 'turn.finished', `the turn was still running when the worker was to be killed (${JSON.stringify(s.data)})`);
      if (s.data.type === 'tool.result') toolDone = true;
      if (toolDone && s.data.type === 'message.delta') deltasAfterTool++;
      // Looked up at the answer's first delta, while the rest streams (a lookup takes a moment).
      if (deltasAfterTool === 1) worker ??= workerOfStep(sid, second.turn_id);
    }
    const killed = await worker!;
    const before = await compose.inspect(killed);
    check(!seen.some((s) => s.data.type === 'turn.finished'), 'the turn was still running when the worker was killed');
    process.kill(before.pid, 'SIGKILL');
    const killedAt = Date.now();
    const killedIndex = seen.length;
    log(`turn 2: killed the main process of worker container ${killed.slice(0, 12)} (running the answer; pid ${before.pid} on the host) with SIGKILL mid-answer`);
    const watch = watchRestart(compose, killed, before, killedAt);
    watch.catch(() => undefined); // awaited below; a failure of the stream first must not leave it unhandled
    await readUntilFinished(events, 240_000, seen);
    const finishedAt = Date.now();
    const restart = await watch;

    const afterKill = seen.slice(killedIndex);
    const finished2 = seen[seen.length - 1]!.data;
    check(finished2.type === 'turn.finished' && finished2.outcome === 'done' && finished2.turn_id === second.turn_id, `turn ${second.turn_id} finished done (${JSON.stringify(finished2)})`);
    check(!afterKill.some((s) => s.data.type === 'stream.reset'), 'the step cut by the kill continued its answer (no stream.reset)');
    const done = seen.filter((s) => s.data.type === 'message.done').map((s) => s.data as Extract<HttpEventData, { type: 'message.done' }>);
    check(done[done.length - 1]?.content.trim() === SLOW_ANSWER.join('').trim(), 'the retried step delivered the whole answer');
    const finalStep = Number(/:s(\d+):assistant$/.exec(done[done.length - 1]?.entry_id ?? '')?.[1]);
    const joined = seen.flatMap((s) => (s.data.type === 'message.delta' && s.data.turn_id === second.turn_id && s.data.step === finalStep ? [s.data.content] : [])).join('');
    check(joined === done[done.length - 1]?.content, 'a client that joins the cut step\'s deltas holds exactly the stored answer');
    check(restart.restarts === before.restarts + 1, `the restart policy restarted the worker once (restart count ${before.restarts} → ${restart.restarts})`);
    checkFileOnHost(ws, SECOND_FILE);
    await checkStoreAndReplay(http, sid, [first.turn_id, second.turn_id]);
    return {
      first_turn_ms: firstTurnMs,
      second_turn_ms: finishedAt - t2,
      kill_to_worker_running_ms: restart.runningAt - killedAt,
      kill_to_worker_healthy_ms: restart.healthyAt - killedAt,
      kill_to_turn_resumed_ms: afterKill[0]!.at - killedAt,
      kill_to_turn_finished_ms: finishedAt - killedAt,
    };
  } finally {
    events.close();
  }
}

/** Polls the engine until the killed worker runs again and is healthy; when each happened. */
async function watchRestart(compose: ComposeProject, container: string, before: { pid: number }, since: number): Promise<{ runningAt: number; healthyAt: number; restarts: number }> {
  let runningAt = 0;
  for (;;) {
    const now = await compose.inspect(container);
    const at = Date.now();
    const restarted = now.running && now.pid !== before.pid && now.pid > 0;
    if (restarted && !runningAt) runningAt = at;
    if (restarted && now.health === 'healthy') return { runningAt, healthyAt: at, restarts: now.restarts };
    if (at - since > 240_000) throw new Error(`the worker container did not come back healthy within 240 s (${JSON.stringify(now)})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Every store entry once, in order; the replayed stream has exactly one turn.finished per turn. */
async function checkStoreAndReplay(http: StrandHttp, sid: string, turns: string[]): Promise<void> {
  const page = await http.call('GET', `/api/sessions/${sid}/messages`, 200, messagesPageSchema);
  const ids = page.messages.map((m) => m.entry_id);
  const expected = turns.flatMap((t) => [`${t}:user`, `${t}:s0:assistant`, `${t}:s0:tool:*`, `${t}:s1:assistant`]);
  check(ids.length === expected.length && ids.every((id, i) => (expected[i]!.endsWith('*') ? id.startsWith(expected[i]!.slice(0, -1)) : id === expected[i])), `the store holds each entry once: ${JSON.stringify(ids)}`);
  const last = page.messages[page.messages.length - 1]!.message;
  const text = last?.role === 'assistant' ? last.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('') : '';
  check(text.trim() === SLOW_ANSWER.join('').trim(), 'the stored answer is the whole answer');

  const replay = await http.events(sid, 0);
  const finished = new Map<string, number>();
  const doneEntries = new Map<string, number>();
  try {
    for (;;) {
      let s: Seen;
      try {
        s = await next(replay, 3_000);
      } catch (err) {
        if (/within 3000 ms/.test((err as Error).message)) break; // replayed everything, nothing new
        throw err;
      }
      if (s.data.type === 'turn.finished') finished.set(s.data.turn_id, (finished.get(s.data.turn_id) ?? 0) + 1);
      if (s.data.type === 'message.done') doneEntries.set(s.data.entry_id, (doneEntries.get(s.data.entry_id) ?? 0) + 1);
    }
  } finally {
    replay.close();
  }
  check(JSON.stringify([...finished]) === JSON.stringify(turns.map((t) => [t, 1])), `turn.finished exactly once per turn in the replayed stream: ${JSON.stringify([...finished])}`);
  check([...doneEntries.values()].every((n) => n === 1), `every message.done once: ${JSON.stringify([...doneEntries])}`);
}
