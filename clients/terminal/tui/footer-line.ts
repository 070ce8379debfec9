/**
 * The chat's status line as segments, fitted to the terminal's width: it must stay one line (a
 * wrapped footer pushes the conversation up and flickers), so parts are dropped, the least useful
 * first, until it fits; the model (shortened if it must be) and the connection always stay.
 */

export interface FooterFacts {
  /** The phase while a turn runs (`thinking`, `waiting approval`), with its details; undefined when idle. */
  phase?: { text: string; details?: string };
  queued: number;
  model: string;
  /** The session's reasoning level (the wire field `thinking_level`); "reasoning", so it never reads as the phase. */
  reasoning: string;
  tokensIn: number;
  tokensOut: number;
  spent: string;
  tokenCap: string;
  context: string;
  connection?: string;
}

export interface FooterSegment {
  text: string;
  tone: 'phase' | 'facts' | 'warning';
}

const SEP = ' · ';
const tokens = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : `${n}`);
export const shortTokens = tokens;

const clip = (s: string, max: number) => (s.length <= max ? s : max <= 1 ? '…' : `${s.slice(0, max - 1)}…`);

/** The footer's segments for a terminal `columns` wide: their texts together are shorter than `columns`. */
export function footerLine(f: FooterFacts, columns: number): FooterSegment[] {
  // One column spare: a line exactly as wide as the terminal wraps in some terminals.
  const room = Math.max(20, columns - 1);
  const shown = {
    phase: f.phase ? `${f.phase.text}${f.phase.details ? ` (${f.phase.details})` : ''}  ` : '',
    queued: f.queued > 0 ? `${f.queued} queued  ` : '',
    model: f.model,
    reasoning: `reasoning ${f.reasoning}`,
    tokens: `↑${tokens(f.tokensIn)} ↓${tokens(f.tokensOut)}`,
    spent: f.spent,
    tokenCap: f.tokenCap,
    context: f.context,
    connection: f.connection ? `  ${f.connection}` : '',
  };
  const facts = () => [shown.model, shown.reasoning, shown.tokens, shown.spent, shown.tokenCap, shown.context].filter(Boolean).join(SEP);
  const width = () => shown.phase.length + shown.queued.length + facts().length + shown.connection.length;
  // The least useful first: token counts, the level, the phase's details, the connection's reason,
  // context use, the spending and its caps, the queue count; the model is clipped last.
  const reductions: Array<() => void> = [
    () => (shown.tokens = ''),
    () => (shown.reasoning = ''),
    () => (shown.phase = f.phase ? `${f.phase.text}  ` : ''),
    () => (shown.connection = f.connection ? `  ${f.connection.replace(/\s*\(.*$/, '').replace(/…?$/, '…')}` : ''),
    () => (shown.context = ''),
    () => (shown.tokenCap = ''),
    () => (shown.spent = ''),
    () => (shown.queued = ''),
    () => (shown.model = clip(shown.model, Math.max(1, room - (width() - shown.model.length)))),
  ];
  for (const reduce of reductions) {
    if (width() <= room) break;
    reduce();
  }
  return [
    ...(shown.phase ? [{ text: shown.phase, tone: 'phase' as const }] : []),
    ...(shown.queued ? [{ text: shown.queued, tone: 'phase' as const }] : []),
    { text: facts(), tone: 'facts' as const },
    ...(shown.connection ? [{ text: shown.connection, tone: 'warning' as const }] : []),
  ];
}
