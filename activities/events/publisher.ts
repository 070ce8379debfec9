import type { AgentEvent } from '../../contracts/agent-events';
import type { SubagentMarker } from '../../contracts/subagents';

/** One event to publish, with the id JetStream de-duplicates retried publishes by. */
export interface OutgoingEvent {
  /** Deterministic per logical event (e.g. `t3:s0:a1:d7`), so an activity retry never doubles it. */
  id: string;
  turn_id?: string;
  attempt?: number;
  /** A sub-agent's event on its parent's stream (subagent-routing.ts). */
  subagent?: SubagentMarker;
  event: AgentEvent;
}

/**
 * Where a publish's events were stored: `last_seq` lets a workflow that publishes a session's events
 * between turns say where the next turn's events begin without publishing anything itself.
 */
export interface PublishedSeqs {
  first_seq?: number;
  last_seq?: number;
}

/**
 * Port through which activities publish agent events: the worker's JetStream outbox
 * (jetstream-outbox.ts); tests pass an in-memory recorder.
 */
export interface AgentEventPublisher {
  /** Resolves once every event is stored; with the stream sequences of the first and the last one when known. */
  publish(sessionId: string, events: OutgoingEvent[]): Promise<PublishedSeqs | void>;
}
