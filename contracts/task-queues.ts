/**
 * The Temporal task queue the worker polls and the gateway starts workflows on. Both sides read the
 * same environment variable so a deployment can run several isolated stacks on one Temporal cluster.
 */
export const DEFAULT_TASK_QUEUE = 'strand-agent';

/** Resolves the task queue from `STRAND_TASK_QUEUE`, falling back to {@link DEFAULT_TASK_QUEUE}. */
export function taskQueueFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env.STRAND_TASK_QUEUE?.trim() || DEFAULT_TASK_QUEUE;
}

/**
 * Custom search attributes set on session and turn workflows, so an operator can find them in the
 * Temporal UI by id, project, model, phase or owner, and on job workflows by status, project and schedule. The dev server registers them at start
 * (`--search-attribute`); docker-compose's temporal-setup registers the same list.
 */
export const SEARCH_ATTRIBUTES = {
  sessionId: { name: 'StrandSessionId', type: 'Keyword' },
  projectPath: { name: 'StrandProjectPath', type: 'Keyword' },
  model: { name: 'StrandModel', type: 'Keyword' },
  /** The session's phase (idle, thinking, tool_execution, waiting_approval, …), kept current. */
  phase: { name: 'StrandPhase', type: 'Keyword' },
  owner: { name: 'StrandOwner', type: 'Keyword' },
  /** An unattended job's status (docs/jobs.md, "Finding jobs"): `running`, then the report's status. */
  jobStatus: { name: 'StrandJobStatus', type: 'Keyword' },
  /** The job's project path (the spec's, not its workspace). */
  jobProject: { name: 'StrandJobProject', type: 'Keyword' },
  /** The schedule that started the job, when one did. */
  jobSchedule: { name: 'StrandJobSchedule', type: 'Keyword' },
} as const;
