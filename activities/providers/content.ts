import type { ContentBlock } from '../../contracts/session-store/messages';

/** The text of a message's text blocks, in order (thinking, tool calls and images left out). */
export function textOf(content: ReadonlyArray<ContentBlock | { type: string; text?: string }>): string {
  return content
    .filter((b): b is { type: 'text'; text: string } => b.type === 'text' && typeof (b as { text?: unknown }).text === 'string')
    .map((b) => b.text)
    .join('');
}
