import type { JobLimitHit } from '../../contracts/job-report';
import type { JobSpec } from '../../contracts/job-spec';

const WHY: Partial<Record<JobLimitHit, string>> = {
  deadline_soft: 'the job’s deadline is near',
  budget_soft: 'the job has spent most of its budget',
  steps_soft: 'the job has used most of its steps',
};

/** The wrap-up turn's prompt: stop, leave the work coherent, say what is done and what is left. */
export function wrapUpPrompt(limit: JobLimitHit, spec: JobSpec): string {
  return [
    `Stop here: ${WHY[limit] ?? 'a limit of the job was reached'}.`,
    'Do not start anything new. Leave the workspace coherent: no half-made edit, nothing broken that worked before (undo a change you cannot finish).',
    'Then answer with a short report: what is done, what is left to do, and anything the next person must know.',
    `The task was:\n${spec.task.prompt}`,
  ].join('\n');
}

/** The prompt of the turn the watchdog starts after a stalled one (docs/jobs.md, "Watchdog"). */
export function retryPrompt(diagnosis: string): string {
  return [
    `Your previous step was cut off: ${diagnosis}.`,
    'Continue the task from where it stopped. First check what was already done (files, commits), do not redo it; avoid whatever hung (a command that waits for input or never ends: give it a timeout or do it differently).',
  ].join('\n');
}
