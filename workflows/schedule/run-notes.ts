import type { PreviousRunNote } from '../../activities/schedules';

/** The prompt's cap (contracts/job-spec.ts): the note gives way to the prompt, never the reverse. */
const PROMPT_MAX_CHARS = 100_000;

/**
 * Notes between runs (docs/jobs.md, "Schedules"): the previous finished run's summary, put before
 * the prompt so that this run can report only what changed. The first run has no note.
 */
export function withPreviousRunNote(prompt: string, previous: PreviousRunNote | null): string {
  if (!previous) return prompt;
  const head =
    `Notes from this schedule's previous run (due ${new Date(previous.due_ms).toISOString()}, job ${previous.job_id}, ${previous.status}):\n\n` +
    `${previous.summary.trim() || '(no summary)'}\n\n` +
    'Report only what changed since that run.\n\n---\n\n';
  return (head.slice(0, Math.max(0, PROMPT_MAX_CHARS - prompt.length)) + prompt).slice(0, PROMPT_MAX_CHARS);
}
