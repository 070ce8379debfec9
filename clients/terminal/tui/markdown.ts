import { Marked } from 'marked';
import { markedTerminal } from 'marked-terminal';

/**
 * Markdown as terminal text: marked parses, marked-terminal renders (headings, emphasis, lists,
 * tables, quotes) and highlights code blocks through cli-highlight. Chosen because it is the
 * maintained, widely used renderer for exactly this, so the chat carries no renderer of its own; its
 * peer range pins marked below 16. A renderer per width, since paragraphs are wrapped to it.
 */
const renderers = new Map<number, Marked>();

export function renderMarkdown(text: string, width: number): string {
  let marked = renderers.get(width);
  if (!marked) {
    marked = new Marked(markedTerminal({ width, reflowText: true, tab: 2, showSectionPrefix: false }, { ignoreIllegals: true }));
    renderers.set(width, marked);
  }
  try {
    return String(marked.parse(text, { async: false })).replace(/\s+$/, '');
  } catch {
    // Half-streamed markdown that a renderer chokes on is shown as it is until more arrives.
    return text;
  }
}
