import { RequestError, type PromptResponse } from '@agentclientprotocol/sdk';
import type { TurnSummary } from '../events/turn-stream';

/**
 * How a prompted turn's end answers `session/prompt`. A turn that ended normally answers `end_turn`,
 * or `max_tokens` when its last step hit the model's output limit, or `max_turn_requests` when it
 * stopped after tool calls without the model having the last word (the step limit, or an interrupt
 * sent from another client); an aborted turn answers `cancelled`. A failed turn has no stop reason
 * in ACP: the prompt fails with the turn's error (strand's code in `data.code`).
 */
export function stopReasonOf(summary: TurnSummary, sessionId: string): PromptResponse | RequestError {
  if (summary.outcome === 'aborted') return { stopReason: 'cancelled' };
  if (summary.outcome === 'error') {
    const error = summary.error;
    return new RequestError(-32603, error?.message ?? 'the turn failed', { sessionId, code: error?.code ?? 'TURN_FAILED', ...(error?.kind ? { kind: error.kind } : {}), ...(error?.provider ? { provider: error.provider } : {}) });
  }
  if (summary.stopReason === 'length') return { stopReason: 'max_tokens' };
  if (summary.stopReason === 'function_call') return { stopReason: 'max_turn_requests' };
  return { stopReason: 'end_turn' };
}
