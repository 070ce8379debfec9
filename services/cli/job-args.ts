import path from 'node:path';
// cli-args.ts imports this file too: UsageError is only used when a command line is parsed, after both loaded.
import { UsageError } from './cli-args';

/**
 * `strand jobs` and `strand job …` parsed (cli-args.ts reads the options first, with parseArgs):
 * unattended jobs through the gateway (docs/jobs.md). A mistake is a UsageError naming the command.
 */

/** The statuses `strand jobs --status` takes: `running`, or a report's status. */
const STATUSES = ['running', 'succeeded', 'partial', 'failed', 'cancelled', 'needs_human', 'terminated', 'timed_out'] as const;
type JobListStatus = (typeof STATUSES)[number];

export type JobsCommand =
  | { command: 'jobs'; status?: JobListStatus }
  | { command: 'job'; action: 'run'; spec: string; jobId?: string; wait: boolean }
  | { command: 'job'; action: 'show' | 'cancel'; jobId: string }
  | { command: 'job'; action: 'report'; jobId: string; json: boolean }
  | { command: 'job'; action: 'answer'; jobId: string; toolCallId: string; decision: 'allow' | 'deny'; reason?: string }
  | { command: 'job'; action: 'resume'; jobId: string; decision: 'allow' | 'deny'; message?: string };

type Values = Record<string, string | boolean | undefined>;
type Rest = (max: number, what: string) => void;

const see = (cmd: string) => `(see \`strand ${cmd} --help\`)`;

/** `strand jobs [list] [--status S]`. */
export function jobsCommand(values: Values, positionals: string[], rest: Rest): JobsCommand {
  const [action = 'list'] = positionals;
  if (action !== 'list') throw new UsageError(`strand jobs: unknown action ${JSON.stringify(action)}: list (for one job: strand job show <id>) ${see('jobs')}`);
  rest(1, ' after list');
  const status = values.status;
  if (status === undefined) return { command: 'jobs' };
  if (typeof status !== 'string' || !(STATUSES as readonly string[]).includes(status)) throw new UsageError(`strand jobs: --status is one of ${STATUSES.join(', ')} ${see('jobs')}`);
  return { command: 'jobs', status: status as JobListStatus };
}

/** Options that only one action of `strand job` takes. */
const ONLY: Record<string, string> = { wait: 'run', id: 'run', json: 'report', reason: 'answer', message: 'resume' };

/** `strand job run <spec.json|-> [--id ID] [--wait] | show <id> | report <id> [--json] | cancel <id> | answer <id> <tool call id> allow|deny [--reason TEXT] | resume <id> allow|deny [--message TEXT]`. */
export function jobCommand(values: Values, positionals: string[], rest: Rest, base: string): JobsCommand {
  const [action, first, second, third] = positionals;
  const actions = ['run', 'show', 'report', 'cancel', 'answer', 'resume'];
  if (action === undefined) throw new UsageError(`strand job: needs an action: ${actions.join(', ')} ${see('job')}`);
  if (!actions.includes(action)) throw new UsageError(`strand job: unknown action ${JSON.stringify(action)}: ${actions.join(', ')} ${see('job')}`);
  for (const [option, owner] of Object.entries(ONLY)) {
    if (values[option] !== undefined && owner !== action) throw new UsageError(`strand job ${action}: --${option} is an option of \`strand job ${owner}\` ${see('job')}`);
  }
  if (first === undefined || first === '') throw new UsageError(`strand job ${action}: needs ${action === 'run' ? 'a spec file (or - for stdin)' : 'a job id'} ${see('job')}`);
  if (action === 'run') {
    rest(2, ' after the spec file');
    const jobId = values.id;
    if (jobId === '') throw new UsageError(`strand job run: --id needs a value ${see('job')}`);
    return { command: 'job', action, spec: first === '-' ? '-' : path.resolve(base, first), ...(typeof jobId === 'string' ? { jobId } : {}), wait: values.wait === true };
  }
  if (action === 'answer') {
    if (second === undefined || second === '') throw new UsageError(`strand job answer: needs the escalated call's id (strand job show <id> lists them) ${see('job')}`);
    if (third !== 'allow' && third !== 'deny') throw new UsageError(`strand job answer: the answer is allow or deny${third === undefined ? '' : `, not ${JSON.stringify(third)}`} ${see('job')}`);
    rest(4, ' after the answer');
    const reason = values.reason;
    return { command: 'job', action, jobId: first, toolCallId: second, decision: third, ...(typeof reason === 'string' && reason !== '' ? { reason } : {}) };
  }
  if (action === 'resume') {
    if (second !== 'allow' && second !== 'deny') throw new UsageError(`strand job resume: the decision for the call the job stopped at is allow or deny${second === undefined ? '' : `, not ${JSON.stringify(second)}`} ${see('job')}`);
    rest(3, ' after the decision');
    const message = values.message;
    return { command: 'job', action, jobId: first, decision: second, ...(typeof message === 'string' && message !== '' ? { message } : {}) };
  }
  rest(2, ' after the job id');
  if (action === 'report') return { command: 'job', action, jobId: first, json: values.json === true };
  return { command: 'job', action: action as 'show' | 'cancel', jobId: first };
}
