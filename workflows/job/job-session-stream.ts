import * as wf from '@temporalio/workflow';
import type { AgentEvent } from '../../contracts/agent-events';
import type { SessionStatePart } from '../../contracts/session-state-event';
import { composeSessionState, type StateProgress } from '../../contracts/session-state-compose';
import type { SessionSettings } from '../../contracts/session-settings';
import { turnProgressPublishedSignal, type TurnOutcome, type TurnProgress } from '../../contracts/turn-workflow';
import { turnNumberOf, turnWorkflowId } from '../../contracts/workflow-ids';
import { EventQueue } from '../event-queue';

/**
 * Patch (2026-11): a job's turns are announced on its session's stream as a session workflow's are
 * (`session.state` before each turn, `turn.finished` and the `idle` state after it), and the turns
 * publish their own states. Older histories ran their turns without either.
 */
export const JOB_TURNS_ON_STREAM_PATCH = 'job-turns-on-session-stream';

/** The session's part of `session.state` for a job: its settings never change and nothing queues. */
export function jobStatePart(settings: Pick<SessionSettings, 'model' | 'thinking_level' | 'auto_retry' | 'auto_compaction' | 'name'>): SessionStatePart {
  return {
    model: settings.model,
    thinking_level: settings.thinking_level,
    queue_length: 0,
    ...(settings.name ? { session_name: settings.name } : {}),
    auto_retry: settings.auto_retry,
    auto_compaction: settings.auto_compaction,
  };
}

/**
 * The job's own events on its session's stream (docs/jobs.md, "How a job runs"). A job's session has
 * no session workflow: the job owns its phase, so the job publishes what the session workflow would
 * (workflows/session/session-turns.ts), through the same event queue and local activity. While a turn
 * runs, the turn publishes the states itself (it is started with `publishes_state` and this part),
 * except the one announcing calls that wait for approval, which the job publishes and acknowledges.
 */
export class JobSessionStream {
  private readonly events: EventQueue;
  /** Stream sequence of the running turn's first event (its `thinking` state): where a client that joins mid-turn starts. */
  turnStartSeq: number | null = null;

  constructor(
    readonly sessionId: string,
    readonly part: SessionStatePart,
  ) {
    this.events = new EventQueue(sessionId, 'job');
  }

  /** The state a turn enters, published before the turn starts; its sequence is where the turn's events begin. */
  async turnStarts(turn_id: string): Promise<void> {
    const published = await this.publish(turn_id, [this.state({ phase: 'thinking', turn_id, streaming: true, retry_attempt: 0 })]);
    this.turnStartSeq = published?.first_seq ?? null;
  }

  /** The turn ended: `turn.finished`, then the session idles. */
  async turnEnded(turn_id: string, outcome: TurnOutcome, steps: number): Promise<void> {
    this.turnStartSeq = null;
    await this.publish(turn_id, [
      { type: 'turn.finished', turn_id, outcome, steps },
      this.state({ phase: 'idle', turn_id: null, streaming: false, retry_attempt: 0 }),
    ]);
  }

  /**
   * A report the turn waits for (calls waiting for approval): its state is published, then the turn is
   * told so and goes on. A stale report (of a turn no longer running) is only acknowledged.
   */
  async acknowledge(p: TurnProgress, current: boolean): Promise<void> {
    if (current) await this.publish(p.turn_id, [this.state({ phase: p.phase, turn_id: p.turn_id, streaming: p.streaming ?? false, retry_attempt: p.retry_attempt ?? 0, details: p.details })]);
    const n = turnNumberOf(p.turn_id);
    if (p.report_id === undefined || n === undefined) return;
    await wf.CancellationScope.nonCancellable(() => wf.getExternalWorkflowHandle(turnWorkflowId(this.sessionId, n)).signal(turnProgressPublishedSignal, { report_id: p.report_id! })).catch(() => undefined);
  }

  private state(progress: StateProgress): AgentEvent {
    return composeSessionState(this.part, progress);
  }

  /**
   * Published in order (the queue waits for the one before). A stream that stays unreachable past the
   * local activity's retries costs watchers an announcement, never the job its work.
   */
  private publish(turn_id: string, events: AgentEvent[]): Promise<{ first_seq?: number } | undefined> {
    return wf.CancellationScope.nonCancellable(() => this.events.publish(events.map((event) => ({ event, turn_id })))).catch(() => undefined);
  }
}
