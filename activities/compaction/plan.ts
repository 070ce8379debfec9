import type { ContentBlock } from '../../contracts/session-store/messages';
import type { ProviderMessage } from '../providers/types';

/** A message of the active path with its entry id. */
export interface PathMessage {
  entry_id: string;
  message: ProviderMessage;
}

/** Rough token count (~4 characters a token): enough to choose a cut and report sizes. */
export function estimateTokens(messages: ReadonlyArray<{ message: ProviderMessage } | ProviderMessage>): number {
  let chars = 0;
  for (const item of messages) {
    const m = 'message' in item ? item.message : item;
    for (const b of m.content) chars += blockChars(b);
  }
  return Math.ceil(chars / 4);
}

function blockChars(b: ContentBlock): number {
  switch (b.type) {
    case 'text':
    case 'thinking':
      return b.text.length;
    case 'image':
      return 4_000;
    case 'function_call':
      return b.function_id.length + JSON.stringify(b.arguments ?? {}).length;
    case 'function_result':
      return b.content.reduce((n, c) => n + blockChars(c), 0);
  }
}

/**
 * Where to cut: the summary replaces everything before the first kept message, which is the start of
 * a user turn (a user message, never a tool result, so a tool call is never separated from its
 * result), chosen so that what is kept fits `keepTokens` — at least the last user turn is kept.
 * Undefined when there is nothing before the last user turn to summarise.
 */
export function chooseCut(path: PathMessage[], keepTokens: number): number | undefined {
  const starts = path.map((p, i) => (p.message.role === 'user' ? i : -1)).filter((i) => i > 0);
  if (starts.length === 0) return undefined;
  let cut = starts[starts.length - 1]!;
  for (let k = starts.length - 2; k >= 0; k--) {
    if (estimateTokens(path.slice(starts[k]!)) > keepTokens) break;
    cut = starts[k]!;
  }
  return cut;
}

const READS = new Set(['read_file']);
const WRITES = new Set(['write_file', 'edit_file', 'delete_file']);

/** Files the summarised part read and changed (from its tool calls), so the summary can name them. */
export function filesTouched(path: PathMessage[]): { files_read: string[]; files_modified: string[] } {
  const read = new Set<string>();
  const modified = new Set<string>();
  for (const { message } of path) {
    if (message.role !== 'assistant') continue;
    for (const b of message.content) {
      if (b.type !== 'function_call') continue;
      const p = (b.arguments as { path?: unknown } | undefined)?.path;
      if (typeof p !== 'string') continue;
      if (READS.has(b.function_id)) read.add(p);
      if (WRITES.has(b.function_id)) modified.add(p);
    }
  }
  return { files_read: [...read].sort(), files_modified: [...modified].sort() };
}

/** The conversation to summarise, as plain text a model reads in one message. */
export function transcriptText(path: PathMessage[]): string {
  const lines: string[] = [];
  for (const { message: m } of path) {
    const who = m.role === 'function_result' ? `tool result (${m.function_id})` : m.role;
    const parts = m.content.map((b) => {
      if (b.type === 'text') return b.text;
      if (b.type === 'function_call') return `[calls ${b.function_id} ${JSON.stringify(b.arguments ?? {})}]`;
      if (b.type === 'thinking') return '';
      if (b.type === 'image') return '[image]';
      return '[result]';
    });
    const text = parts.filter(Boolean).join('\n');
    if (text) lines.push(`${who}: ${text.length > 4_000 ? `${text.slice(0, 4_000)} […]` : text}`);
  }
  return lines.join('\n\n');
}
