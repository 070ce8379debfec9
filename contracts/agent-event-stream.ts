import type { JetStreamManager } from 'nats';
import { natsReplicas } from './nats-replicas';
import { encodeSubjectToken } from './session-store/subjects';

/**
 * Where agent events live in NATS. One JetStream stream holds every session's events; each session
 * has one subject, so a reader replays a session from any sequence with a single-subject filter
 * (which even a 2.9 nats-server supports).
 */
export const AGENT_EVENTS_STREAM = 'STRAND_AGENT_EVENTS';

/** The subject wildcard the stream captures. */
export const AGENT_EVENTS_SUBJECTS = 'strand.agent.>';

/**
 * The subject of one session's events. Ids that are not safe subject tokens are encoded reversibly
 * (same rule as the session store's event subjects).
 */
export function agentEventSubject(sessionId: string): string {
  return `strand.agent.${encodeSubjectToken(sessionId)}`;
}

/**
 * Stream settings both publisher (worker) and readers (gateways) ensure at start, so whichever comes
 * up first creates it. `duplicate_window` bounds how long a retried publish with the same msgID is
 * recognised as a duplicate: longer than any activity retry backoff we use.
 */
const AGENT_EVENTS_STREAM_CONFIG = {
  name: AGENT_EVENTS_STREAM,
  subjects: [AGENT_EVENTS_SUBJECTS],
  max_age_ms: 7 * 24 * 60 * 60 * 1000,
  duplicate_window_ms: 10 * 60 * 1000,
} as const;

/** Header carrying the envelope's event type, so readers can skip events without parsing bodies. */
export const EVENT_TYPE_HEADER = 'Strand-Event-Type';

/**
 * Creates the agent-events stream, or leaves an existing one alone. Both the worker and the gateway
 * call this at start so their start order does not matter.
 */
export async function ensureAgentEventsStream(jsm: JetStreamManager): Promise<void> {
  const cfg = AGENT_EVENTS_STREAM_CONFIG;
  try {
    await jsm.streams.info(cfg.name);
    return;
  } catch (err) {
    if (!String((err as Error).message).includes('stream not found')) throw err;
  }
  try {
    await jsm.streams.add({
      name: cfg.name,
      subjects: [...cfg.subjects],
      max_age: cfg.max_age_ms * 1_000_000,
      duplicate_window: cfg.duplicate_window_ms * 1_000_000,
      num_replicas: natsReplicas(),
    });
  } catch (err) {
    // Another process created it between our info and add: that is the state we wanted.
    if (!String((err as Error).message).includes('already in use')) throw err;
  }
}
