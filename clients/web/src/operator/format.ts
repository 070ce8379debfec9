/** How the operator view writes times, durations, money and counts. */

const two = (n: number) => String(n).padStart(2, '0');

/** Wall-clock time of day, local: 14:03:09. */
export function clock(epochMs: number): string {
  const d = new Date(epochMs);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** A time as the tables show it: the time of day today, with the date before another day's. */
export function when(epochMs: number, now = Date.now()): string {
  const d = new Date(epochMs);
  const sameDay = d.toDateString() === new Date(now).toDateString();
  return sameDay ? clock(epochMs) : `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${clock(epochMs)}`;
}

/** A duration as people read it: 42 s, 3 min 05 s, 1 h 02 min. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${two(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${two(Math.floor((s % 3600) / 60))} min`;
}

export const usd = (n: number) => `$${n.toFixed(4)}`;

/** A count, with a unit word made plural when it is not 1. */
export const counted = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "done 2, error 1" from a record of counts, larger first; zeros left out. */
export function breakdown(counts: Record<string, number>): string {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `${k} ${round(n)}`)
    .join(', ');
}

/** Whole numbers as they are, others to one decimal. */
export const round = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/** "the last 4 min" / "the last 30 s": how much history a chart covers. */
export function span(seconds: number): string {
  return seconds < 120 ? `the last ${Math.round(seconds)} s` : `the last ${Math.round(seconds / 60)} min`;
}
