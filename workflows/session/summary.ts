/** The prompt's first line, trimmed to what the Temporal UI shows well (a turn's static summary). */
export function summaryOf(text: string): string {
  const first = text.split('\n', 1)[0]?.trim() ?? '';
  return first.length > 200 ? `${first.slice(0, 199)}…` : first;
}
