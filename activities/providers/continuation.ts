import type { PublishedText } from '../events/published-text';
import type { PathItem } from './context';

/**
 * How a retried model step (attempt > 1) goes on: it continues the answer from the text clients
 * already have (a prefill: no token paid twice, no text taken back, no `stream.reset`), or, when that
 * is not possible, it publishes `stream.reset` and streams the answer again from the start.
 */
export type RetriedStep = { continue: true; prefill: string } | { continue: false; why: string };

export interface RetriedStepInput {
  session_id: string;
  turn_id: string;
  step: number;
  attempt: number;
}

/**
 * Continuing needs all of: a model that continues a prefill (catalog `supports.prefill`, adapter
 * `canContinue`); a readable record of what the earlier attempts published; text in it; no thinking
 * in it (a thinking block cannot be prefilled, and Anthropic takes no thinking with a prefill); and
 * no gap in it — a tool call streamed before or between the published deltas, or deltas that could
 * not be read, would be lost by a model that only sees the text. A tool call that was being streamed
 * after the text is simply made again by the continuation.
 */
export async function planRetriedStep(input: RetriedStepInput, path: PathItem[], canContinue: boolean, published: PublishedText | undefined): Promise<RetriedStep> {
  if (!canContinue) return { continue: false, why: 'the model does not continue a prefill' };
  if (!published) return { continue: false, why: 'this worker cannot read published events' };
  const since = stepStartBound(path, input.turn_id, input.step);
  if (since === undefined) return { continue: false, why: `no entry of ${input.turn_id} dates the step's start` };
  let got;
  try {
    got = await published.read({ ...input, since });
  } catch (err) {
    return { continue: false, why: `the published text could not be read: ${(err as Error).message}` };
  }
  if (got.thinking) return { continue: false, why: 'the earlier attempt streamed thinking' };
  if (!got.gapless) return { continue: false, why: 'part of the earlier answer was not published as text or not read' };
  if (!got.text.trim()) return { continue: false, why: 'the earlier attempt published no text' };
  return { continue: true, prefill: got.text };
}

/**
 * A time no event of the step can be older than: the newest of the entries the turn wrote before the
 * step (its user message, earlier steps' answers, tool results and steering). Entries of other
 * writers are not trusted for it: one written while the step ran would hide the step's first events.
 */
export function stepStartBound(path: PathItem[], turnId: string, step: number): number | undefined {
  let bound: number | undefined;
  for (const item of path) {
    if (item.timestamp === undefined || !beforeStep(item.entry_id, turnId, step)) continue;
    bound = Math.max(bound ?? item.timestamp, item.timestamp);
  }
  return bound;
}

/** `<turn>:user`, or `<turn>:s<k>:…` with k below the step (entry ids: contracts/workflow-ids.ts). */
function beforeStep(entryId: string, turnId: string, step: number): boolean {
  if (entryId === `${turnId}:user`) return true;
  const match = /^s(\d+):/.exec(entryId.startsWith(`${turnId}:`) ? entryId.slice(turnId.length + 1) : '');
  return match !== null && Number(match[1]) < step;
}
