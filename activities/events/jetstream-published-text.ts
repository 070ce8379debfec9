import { DeliverPolicy, type JsMsg, type NatsConnection } from 'nats';
import { AGENT_EVENTS_STREAM, agentEventSubject } from '../../contracts/agent-event-stream';
import { agentEventEnvelopeSchema } from '../../contracts/agent-events';
import { foldPublishedStep, type PublishedEvent, type PublishedStepText, type PublishedText } from './published-text';

export interface JetStreamPublishedTextOptions {
  /**
   * How far before `since` the read starts: `since` is a worker's clock, JetStream's timestamps are the
   * server's. A minute of skew costs only a minute more of the session's events.
   */
  clockSkewMs?: number;
  /** A read that has not reached the session's last event by then fails (the step then resets). */
  timeoutMs?: number;
}

const NOTHING: PublishedStepText = { text: '', thinking: false, gapless: true };

/**
 * Reads a step's earlier attempts from the agent-events stream. Cost: one lookup of the session's
 * last event, then an ordered consumer filtered on the session's subject from the step's start
 * (JetStream finds that sequence by time), read up to that last event — the step's own events plus
 * the clock-skew margin, however long the session is. Events published after the lookup are not
 * waited for: the asking attempt has published nothing yet, and an earlier attempt's worker either
 * died or flushed its events before it failed (stream-model-step.ts).
 */
export function createJetStreamPublishedText(nc: NatsConnection, opts: JetStreamPublishedTextOptions = {}): PublishedText {
  const skew = opts.clockSkewMs ?? 60_000;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  return {
    async read(query) {
      const subject = agentEventSubject(query.session_id);
      const jsm = await nc.jetstreamManager();
      let last: { seq: number; time: Date };
      try {
        last = await jsm.streams.getMessage(AGENT_EVENTS_STREAM, { last_by_subj: subject });
      } catch (err) {
        if (/no message found/i.test((err as Error).message)) return NOTHING;
        throw err;
      }
      const start = new Date(query.since - skew);
      if (last.time < start) return NOTHING;
      const consumer = await nc.jetstream().consumers.get(AGENT_EVENTS_STREAM, {
        filterSubjects: subject,
        deliver_policy: DeliverPolicy.StartTime,
        opt_start_time: start.toISOString(),
      });
      const messages = await consumer.consume({ max_messages: 256 });
      const events: PublishedEvent[] = [];
      let reached = false;
      const timer = setTimeout(() => messages.stop(), timeoutMs);
      try {
        for await (const m of messages) {
          const event = decode(m, query.session_id);
          if (event) events.push(event);
          if (m.seq >= last.seq) {
            reached = true;
            break;
          }
        }
      } finally {
        clearTimeout(timer);
        messages.stop();
      }
      if (!reached) throw new Error(`reading the published text of ${query.turn_id} step ${query.step}: the session's events up to #${last.seq} did not arrive within ${timeoutMs / 1000} s`);
      return foldPublishedStep(events, query);
    },
  };
}

function decode(m: JsMsg, sessionId: string): PublishedEvent | undefined {
  let body: unknown;
  try {
    body = m.json();
  } catch {
    return undefined;
  }
  const parsed = agentEventEnvelopeSchema.safeParse(body);
  if (!parsed.success) return undefined;
  // The outbox's message ids are `<session>|<event id>` (jetstream-outbox.ts).
  const msgId = m.headers?.get('Nats-Msg-Id') ?? '';
  const id = msgId.startsWith(`${sessionId}|`) ? msgId.slice(sessionId.length + 1) : undefined;
  return { ...(id ? { id } : {}), ...(parsed.data.attempt !== undefined ? { attempt: parsed.data.attempt } : {}), event: parsed.data.event };
}
