import type { StepTruth } from './provider-script';

/** A stored entry as `GET /api/sessions/{id}/messages` lists it, its text blocks joined. */
export interface StoredEntry {
  entry_id: string;
  role: string;
  text: string;
}

/** A `turn.finished` as one reader saw it. */
export interface FinishedSeen {
  turn: string;
  outcome: string;
}

/** What a trial observed, gathered after it ended; the checks are a pure function of it. */
export interface TrialObservation {
  turns: { first: string; next?: string };
  expectedEntries: string[];
  /** What the provider streamed, per step, for the faulted turn and for the next one. */
  truth: { first: StepTruth[]; next: StepTruth[] };
  stored: StoredEntry[] | { error: string };
  /** The client that followed the session through the fault: its texts per step, what ended turns. */
  client: { first: string[]; next: string[]; finished: FinishedSeen[]; duplicateDeltaIds: number };
  /** A fresh read of the session's whole event stream (`Last-Event-ID: 0`) after the trial. */
  replay: { finished: FinishedSeen[] } | { error: string };
  /** The next prompt's status, whether its turn finished `done`, and the body of a refusal. */
  nextPrompt: { status: number; finished: boolean; answer?: string };
}

export interface TrialVerdict {
  /** Exactly one `turn.finished` of the faulted turn on the stream, outcome `done`. */
  finished: boolean;
  /** The stored entries are exactly the expected ids, once each, with the provider's texts. */
  storedOnce: boolean;
  /** The client's text of both turns equals what the provider sent (= what was stored). */
  clientExact: boolean;
  /** Delta events whose id the client received twice. */
  duplicates: number;
  /** Words of the provider's answer missing from the client's text, and words the client holds extra. */
  lostWords: number;
  extraWords: number;
  /** The next prompt got 202 and its turn finished `done`. */
  nextPrompt: boolean;
  passed: boolean;
  problems: string[];
}

const words = (text: string) => text.split(/\s+/).filter(Boolean);

/** Multiset difference: how many of `want`'s words `have` lacks, and how many it holds beyond `want`. */
export function wordDiff(want: string, have: string): { missing: number; extra: number } {
  const counts = new Map<string, number>();
  for (const w of words(want)) counts.set(w, (counts.get(w) ?? 0) + 1);
  let extra = 0;
  for (const w of words(have)) {
    const n = counts.get(w) ?? 0;
    if (n > 0) counts.set(w, n - 1);
    else extra++;
  }
  let missing = 0;
  for (const n of counts.values()) missing += n;
  return { missing, extra };
}

const short = (s: string) => (s.length > 80 ? `${s.slice(0, 38)}…${s.slice(-38)}` : s);

export function judgeTrial(o: TrialObservation): TrialVerdict {
  const problems: string[] = [];
  const turns = [o.turns.first, o.turns.next].filter((t): t is string => !!t);

  let finished = false;
  if ('error' in o.replay) problems.push(`the event stream could not be replayed: ${o.replay.error}`);
  else {
    const ends = o.replay.finished.filter((f) => f.turn === o.turns.first);
    finished = ends.length === 1 && ends[0]!.outcome === 'done';
    if (!finished) problems.push(`${o.turns.first} ended ${ends.length} times on the stream (${ends.map((f) => f.outcome).join(', ') || 'never'})`);
  }

  let storedOnce = false;
  if ('error' in o.stored) problems.push(`the messages could not be read: ${o.stored.error}`);
  else {
    const ids = o.stored.map((e) => e.entry_id);
    const idsOk = ids.length === o.expectedEntries.length && ids.every((id, i) => id === o.expectedEntries[i]);
    if (!idsOk) problems.push(`stored ${JSON.stringify(ids)}, expected ${JSON.stringify(o.expectedEntries)}`);
    let textsOk = true;
    for (const e of o.stored.filter((x) => x.role === 'assistant')) {
      const m = /^(.+):s(\d+):assistant$/.exec(e.entry_id);
      const truth = m ? (m[1] === o.turns.first ? o.truth.first : o.truth.next)[Number(m[2])] : undefined;
      if (truth?.text === e.text) continue;
      textsOk = false;
      problems.push(`${e.entry_id} stored "${short(e.text)}", the provider sent "${short(truth?.text ?? '(nothing)')}"`);
    }
    storedOnce = idsOk && textsOk;
  }

  let lostWords = 0;
  let extraWords = 0;
  let textsExact = true;
  for (const [label, truth, have] of [
    [o.turns.first, o.truth.first, o.client.first],
    [o.turns.next ?? 'next turn', o.truth.next, o.client.next],
  ] as const) {
    truth.forEach((step, k) => {
      const got = have[k] ?? '';
      if (got === step.text) return;
      textsExact = false;
      const diff = wordDiff(step.text, got);
      lostWords += diff.missing;
      extraWords += diff.extra;
      problems.push(`client text of ${label} step ${k}: ${diff.missing} words missing, ${diff.extra} extra ("${short(got)}")`);
    });
  }
  const clientEnds = turns.map((t) => o.client.finished.filter((f) => f.turn === t));
  const clientSawEnds = clientEnds.every((ends) => ends.length === 1 && ends[0]!.outcome === 'done');
  if (!clientSawEnds) problems.push(`the client saw turn.finished ${turns.map((t, i) => `${t}: ${clientEnds[i]!.map((f) => f.outcome).join('+') || 'none'}`).join(', ')}`);
  if (o.client.duplicateDeltaIds > 0) problems.push(`${o.client.duplicateDeltaIds} delta event ids received twice`);

  const nextPrompt = o.nextPrompt.status === 202 && o.nextPrompt.finished;
  if (!nextPrompt) {
    const { status, answer } = o.nextPrompt;
    problems.push(status === 202 ? 'the next prompt was accepted but its turn did not finish done' : status ? `the next prompt answered ${status}: ${answer ?? ''}` : 'the next prompt was not sent');
  }

  const clientExact = textsExact && clientSawEnds;
  const passed = finished && storedOnce && clientExact && o.client.duplicateDeltaIds === 0 && nextPrompt;
  return { finished, storedOnce, clientExact, duplicates: o.client.duplicateDeltaIds, lostWords, extraWords, nextPrompt, passed, problems };
}
