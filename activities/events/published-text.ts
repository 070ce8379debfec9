import type { AgentEvent } from '../../contracts/agent-events';
import type { OutgoingEvent } from './publisher';

/**
 * What earlier attempts of a model step published, so a retried step can continue the answer from
 * the text clients already have (stream-model-step.ts) instead of streaming it again.
 */

/** One event as it was published: its id (the de-duplication id, e.g. `t1:s0:a1:c7`), attempt and event. */
export interface PublishedEvent {
  id?: string;
  attempt?: number;
  event: AgentEvent;
}

/** Which step is asked about, by which attempt. */
export interface PublishedStepQuery {
  session_id: string;
  turn_id: string;
  step: number;
  /** The asking attempt: only earlier attempts' events count. */
  attempt: number;
  /** Epoch ms no event of the step can be older than (the step's first attempt began later). */
  since: number;
}

/** The step's published text, as a client that applied the stream's rules holds it. */
export interface PublishedStepText {
  /** `assistant.delta` texts since the step's last `stream.reset`, in stream order. */
  text: string;
  /** Thinking was streamed since the last reset (a continuation carries text only). */
  thinking: boolean;
  /**
   * Every attempt's deltas since the last reset are its chunks 1…n with none missing: nothing it
   * produced before or between them went unpublished (a tool call) or was left unread. Only then is
   * `text` a prefix the model can continue without losing part of its answer.
   */
  gapless: boolean;
}

/** Port: reads what a step's earlier attempts published (JetStream in the worker, memory in tests). */
export interface PublishedText {
  read(query: PublishedStepQuery): Promise<PublishedStepText>;
}

/**
 * Folds a session's events (in stream order, any superset of the step's) into the step's text. The
 * rules are the clients' (contracts/step-text.ts): deltas append, `stream.reset` voids
 * what came before, and a delta of an attempt older than one already seen is a straggler of a given-up
 * attempt and is ignored.
 */
export function foldPublishedStep(events: Iterable<PublishedEvent>, query: Pick<PublishedStepQuery, 'turn_id' | 'step' | 'attempt'>): PublishedStepText {
  const prefix = `${query.turn_id}:s${query.step}:a`;
  let text = '';
  let thinking = false;
  let gapless = true;
  let newest = 0;
  const nextChunk = new Map<number, number>();
  for (const { id, attempt = 1, event } of events) {
    if (attempt >= query.attempt || !('turn_id' in event) || event.turn_id !== query.turn_id || !('step' in event) || event.step !== query.step) continue;
    if (event.type === 'stream.reset') {
      text = '';
      thinking = false;
      gapless = true;
      newest = attempt;
      nextChunk.clear();
      continue;
    }
    if (event.type !== 'assistant.delta' && event.type !== 'assistant.thinking_delta') continue;
    if (attempt < newest) continue;
    newest = attempt;
    const chunk = chunkOf(id, prefix, attempt);
    if (chunk === undefined || chunk !== (nextChunk.get(attempt) ?? 1)) gapless = false;
    if (chunk !== undefined) nextChunk.set(attempt, chunk + 1);
    if (event.type === 'assistant.delta') text += event.text;
    else thinking = true;
  }
  return { text, thinking, gapless };
}

/** The chunk number in a delta's id `<turn>:s<step>:a<attempt>:c<n>`; undefined when it is not one. */
function chunkOf(id: string | undefined, prefix: string, attempt: number): number | undefined {
  const head = `${prefix}${attempt}:c`;
  if (!id?.startsWith(head)) return undefined;
  const n = Number(id.slice(head.length));
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** The in-memory implementation over what a recording publisher kept (unit tests). */
export function memoryPublishedText(published: readonly OutgoingEvent[]): PublishedText {
  return {
    async read(query) {
      return foldPublishedStep(published, query);
    },
  };
}
