import type { JsMsg } from 'nats';
import { agentEventEnvelopeSchema } from '../../../contracts/agent-events';
import type { SequencedEvent } from './agent-event-reader';

/** Told about a stored message that is not an event envelope: its stream sequence and why. */
export type InvalidEventReport = (seq: number, reason: string) => void;

/**
 * The one reading of a JetStream message as an agent event, for every reader of the event stream: the
 * envelope checked against the contract and stamped with the message's stream sequence (the number
 * clients resume from). A message that is not JSON or not a valid envelope is reported and skipped
 * (undefined), so one bad publish never ends a client's read.
 */
export function eventFromMessage(m: JsMsg, reportInvalid: InvalidEventReport): SequencedEvent | undefined {
  let body: unknown;
  try {
    body = m.json();
  } catch {
    reportInvalid(m.seq, 'not JSON');
    return undefined;
  }
  const parsed = agentEventEnvelopeSchema.safeParse(body);
  if (!parsed.success) {
    reportInvalid(m.seq, parsed.error.issues[0]?.message ?? 'invalid envelope');
    return undefined;
  }
  return { seq: m.seq, envelope: { ...parsed.data, seq: m.seq } };
}
