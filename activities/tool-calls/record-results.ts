import type { AgentEvent } from '../../contracts/agent-events';
import { entryIds } from '../../contracts/workflow-ids';
import type { AgentEventPublisher } from '../events/publisher';
import type { StorePort } from '../store/store-port';
import { storeCall } from '../store/store-failures';
import type { ToolLedger, ToolOutcome } from './ledger';

/** What became of one tool call of a step. */
interface ToolCallDisposition {
  id: string;
  name: string;
  /** `refused`: plan mode turned the call down (not run, nobody asked); `reason` is the whole result text. */
  disposition: 'ran' | 'rejected' | 'refused' | 'skipped' | 'aborted';
  /** The person's reason for a rejection, why a call timed out, or plan mode's refusal. */
  reason?: string;
}

export interface RecordToolResultsInput {
  session_id: string;
  turn_id: string;
  step: number;
  calls: ToolCallDisposition[];
}

/**
 * Writes a step's tool results to the store in call order (`<turn>:s<k>:tool:<call_id>`, idempotent),
 * whatever became of each call: the ledger's outcome for a call that ran, the person's reason for a
 * rejected one, a note for calls skipped by steering or cut off by an abort. Every tool call then has
 * its result, which providers require before the next request.
 */
export function createRecordToolResults(deps: { store: StorePort; events: AgentEventPublisher; ledger: ToolLedger; now?: () => number }) {
  const now = deps.now ?? Date.now;
  return async function recordToolResults(input: RecordToolResultsInput): Promise<{ entry_ids: string[] }> {
    const entry_ids: string[] = [];
    const events: Array<{ id: string; turn_id: string; event: AgentEvent }> = [];
    for (const call of input.calls) {
      const key = { session_id: input.session_id, turn_id: input.turn_id, step: input.step, call_id: call.id };
      const recorded = call.disposition === 'ran' || call.disposition === 'aborted' ? await deps.ledger.get(key) : undefined;
      const outcome = recorded ?? outcomeOf(call);
      const entry_id = entryIds.tool(input.turn_id, input.step, call.id);
      await storeCall(`recording the result of ${call.name}`, () =>
        deps.store.append({
          session_id: input.session_id,
          entry_id,
          message: {
            role: 'function_result',
            function_call_id: call.id,
            function_id: call.name,
            content: outcome.blocks ?? [{ type: 'text', text: outcome.content }],
            ...(outcome.details ? { details: outcome.details } : {}),
            is_error: outcome.is_error,
            timestamp: now(),
          },
          origin: { turn: input.turn_id, step: input.step },
        }),
      );
      entry_ids.push(entry_id);
      if (!recorded) {
        events.push({
          id: `${entry_id}:result`,
          turn_id: input.turn_id,
          event: {
            type: 'tool.result',
            tool_call_id: call.id,
            status: call.disposition === 'skipped' ? 'skipped' : call.disposition === 'rejected' || call.disposition === 'refused' ? 'rejected' : 'error',
            is_error: outcome.is_error,
            summary: `${call.name}: ${outcome.content}`,
            result: outcome.content,
          },
        });
      }
    }
    if (events.length > 0) await deps.events.publish(input.session_id, events);
    return { entry_ids };
  };
}

function outcomeOf(call: ToolCallDisposition): ToolOutcome {
  switch (call.disposition) {
    case 'rejected':
      return { content: `The user rejected this ${call.name} call${call.reason ? `: ${call.reason}` : '.'}`, is_error: true, details: { rejected: true } };
    case 'refused':
      // Not an error: the call did what plan mode promises; the model reads why and plans on.
      return { content: call.reason ?? `Plan mode is on: this ${call.name} call was not run.`, is_error: false, details: { rejected: true, plan_mode: true } };
    case 'skipped':
      return { content: `Skipped: the user sent a message before this ${call.name} call ran.`, is_error: true, details: { skipped: true } };
    case 'aborted':
      return { content: `Not run: the user aborted the turn before this ${call.name} call ran.`, is_error: true, details: { aborted: true } };
    case 'ran':
      return { content: `The result of this ${call.name} call was lost.`, is_error: true };
  }
}
