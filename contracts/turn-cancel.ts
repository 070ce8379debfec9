import { encodeSubjectToken } from './session-store/subjects';

/**
 * Core NATS subject on which a turn's abort is announced to the activities running it (model steps,
 * tools), so they stop within milliseconds. Temporal's own cancellation (through heartbeats) stays the
 * durable path; this one is the fast path. Not captured by the agent-events stream.
 */
export function turnCancelSubject(sessionId: string, turnId: string): string {
  return `strand.cancel.${encodeSubjectToken(sessionId)}.${encodeSubjectToken(turnId)}`;
}

/** Every turn's abort subject (a worker hears them all on one subscription: activities/events/turn-cancel.ts). */
export const TURN_CANCEL_SUBJECTS = 'strand.cancel.*.*';
