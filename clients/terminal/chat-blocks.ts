/**
 * What `strand chat` shows, as plain data: the conversation is a list of blocks that events and
 * stored messages build (chat-view.ts, stored-history.ts) and the Ink components only draw.
 */

/** A tool call's result as the gateway reports it (`tool.result` status). */
type ToolOutcome = 'success' | 'error' | 'rejected';

export type ChatBlock =
  | {
      kind: 'user';
      key: string;
      turn?: string;
      text: string;
      /** The stored message's entry id, where a fork can start (a forked session's entries have ids of their own). */
      entryId?: string;
    }
  | {
      kind: 'assistant';
      key: string;
      turn: string;
      step: number;
      /** The stored message's entry id, once it is stored (`message.done`). */
      entryId?: string;
      text: string;
      thinking: string;
      /** The step's message was stored (`message.done`): its text is final. */
      done: boolean;
      stopReason?: string;
    }
  | {
      kind: 'tool';
      key: string;
      turn?: string;
      callId: string;
      tool: string;
      params: unknown;
      /** Streamed output so far (shell commands). */
      output: string;
      outcome?: ToolOutcome;
      result?: string;
    }
  | { kind: 'notice'; key: string; level: 'info' | 'warning' | 'error'; text: string }
  | { kind: 'turn-end'; key: string; turn: string; outcome: 'done' | 'error' | 'aborted' };

/** A tool result's text: strings as they are, anything else as compact JSON. */
export function resultText(result: unknown): string {
  if (typeof result === 'string') return result;
  if (result === undefined || result === null) return '';
  return JSON.stringify(result);
}

/** `t3:s1:assistant` → turn `t3`, step 1 (undefined for another shape). */
export function stepOfEntry(entryId: string): { turn: string; step: number } | undefined {
  const m = /^(.+):s(\d+):assistant$/.exec(entryId);
  return m ? { turn: m[1]!, step: Number(m[2]) } : undefined;
}

/** The turn an entry id belongs to (`t3:user`, `t3:s0:tool:call_1` → `t3`). */
export function turnOfEntry(entryId: string): string | undefined {
  return /^([^:]+):(user|s\d+)/.exec(entryId)?.[1];
}
