/** A GitHub-flavoured markdown table; numbers are right-aligned, everything else left-aligned. */
export function markdownTable(header: string[], rows: (string | number)[][]): string {
  const numeric = header.map((_, c) => rows.length > 0 && rows.every((r) => typeof r[c] === 'number' || /^[\d.,/ %–-]+$|^—$/.test(String(r[c] ?? ''))));
  const cell = (v: string | number | undefined) => String(v ?? '').replace(/\|/g, '\\|');
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(header.map(cell)),
    line(header.map((_, c) => (numeric[c] ? '---:' : '---'))),
    ...rows.map((r) => line(header.map((_, c) => cell(r[c])))),
  ].join('\n');
}
