import type { AgentEventReader, EventSubscription } from '../events/agent-event-reader';
import { gateSubscription } from '../events/send-gate';
import type { SessionCommands } from '../temporal/session-commands';

/** How long opening a stream without a cursor waits for the workflow to say where the running turn starts. */
const STREAM_START_QUERY_MS = 1_500;

export interface SessionEventsDeps {
  reader: Pick<AgentEventReader, 'open'>;
  commands: Pick<SessionCommands, 'live' | 'queried' | 'jobTurnStart'>;
  /**
   * Asked before each next event is read, when the connection the events go to paces them (a
   * WebSocket's outbox): while it says no, the rest waits in JetStream, not in the gateway.
   */
  pace?: () => Promise<boolean>;
}

/**
 * Events after `afterSeq`, then live ones. Without a cursor: the running turn's events so far (from
 * its first event), then live ones — a client that connects just after sending a prompt misses
 * nothing; with no turn running, live events only. A job's session (`jobId`) has no session workflow:
 * its job says where its running turn starts.
 */
export async function openSessionEvents(deps: SessionEventsDeps, sessionId: string, afterSeq: number | undefined, jobId?: string): Promise<EventSubscription> {
  const start = afterSeq ?? (jobId !== undefined ? await runningJobTurnStart(deps, jobId) : await runningTurnStart(deps, sessionId));
  const subscription = await deps.reader.open(sessionId, start);
  return deps.pace ? gateSubscription(subscription, deps.pace) : subscription;
}

/**
 * Where the running turn starts is asked of the workflow: the view is written when the workflow task
 * that started the turn completes, after the turn's first events went out, so right after a prompt it
 * can still name the previous turn's start (and the stream would replay that turn). The view serves
 * when the workflow cannot answer in time (a busy or frozen worker).
 */
async function runningTurnStart(deps: SessionEventsDeps, sessionId: string): Promise<number | undefined> {
  const state = await deps.commands.queried(sessionId, STREAM_START_QUERY_MS).catch(() => deps.commands.live(sessionId).catch(() => undefined));
  return state?.active_turn && state.turn_start_seq ? state.turn_start_seq - 1 : undefined;
}

/** Where a job's running turn starts (its first event, the state the job published before it). */
async function runningJobTurnStart(deps: SessionEventsDeps, jobId: string): Promise<number | undefined> {
  const first = await deps.commands.jobTurnStart(jobId, STREAM_START_QUERY_MS);
  return first ? first - 1 : undefined;
}
