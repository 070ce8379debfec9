import { jobCallsOn, jobRunning, type JobDecision, type JobView } from '../../core/job-calls';
import { ApiError, gateway } from './api';

/** The page's calls of the jobs' routes, with the tab's token (api.ts). */
export const jobCalls = jobCallsOn(gateway);

/** The last turn of a stored conversation (its prompt `t<n>:user` opens it): a running job's turn in progress. */
export function lastTurnOf(items: Array<{ entry_id: string }>): string | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const prompt = /^(t\d+):user$/.exec(items[i]!.entry_id);
    if (prompt) return prompt[1];
  }
  return undefined;
}

/** How often an open running job is read again (its phase, spending and escalations move). */
const POLL_MS = 2_000;

/**
 * The job behind an open session `job-<id>` (docs/jobs.md): its status, progress and escalations
 * while it runs, its report once it ended, and what a person does to it (cancel, answer an
 * escalation). The job's route is the one owner of all of it — the session's stream carries its
 * conversation, not its status — so this reads `GET /api/jobs/{id}` every POLL_MS while the job runs,
 * at once after an action, and once more when it ended (not while the tab is hidden). A session so named whose job the route does
 * not know (404) is an ordinary session: `notAJob`.
 */
export class JobWatch {
  view: JobView | undefined;
  /** The route answered 404: no job of the caller's has this id. */
  notAJob = false;
  /** The last read or action that failed, said on the page. */
  problem: string | undefined;
  /** The report as markdown, once read (the banner's full report). */
  reportText: string | undefined;
  private readonly listeners = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private reading: Promise<void> | undefined;

  /** `ended`: called once when the job is seen to end (the page reads its conversation and the list again). */
  constructor(
    readonly jobId: string,
    private readonly ended: () => void,
  ) {
    document.addEventListener('visibilitychange', this.onVisibility);
    void this.read();
  }

  get running(): boolean {
    return !this.view || jobRunning(this.view.status);
  }

  /** The job's session exists: the job is past making its workspace (a progress its worker did not give counts as past). */
  get sessionMade(): boolean {
    return this.view !== undefined && (!jobRunning(this.view.status) || this.view.progress?.phase !== 'preparing');
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    document.removeEventListener('visibilitychange', this.onVisibility);
    this.listeners.clear();
  }

  /** Reads the job now (a read under way is joined); the next read follows POLL_MS after, while it runs. */
  read(): Promise<void> {
    this.reading ??= this.readOnce().finally(() => {
      this.reading = undefined;
      this.schedule();
    });
    return this.reading;
  }

  cancel(): Promise<boolean> {
    return this.act('the job was not cancelled', () => jobCalls.cancel(this.jobId));
  }

  answer(toolCallId: string, decision: JobDecision, reason?: string): Promise<boolean> {
    return this.act(`the call was not ${decision === 'allow' ? 'allowed' : 'denied'}`, () => jobCalls.answer(this.jobId, toolCallId, decision, reason));
  }

  /** The report as the gateway writes it in markdown (read once; only an ended job has one). */
  async readReport(): Promise<void> {
    if (this.reportText !== undefined || this.running) return;
    try {
      this.reportText = await jobCalls.reportMarkdown(this.jobId);
      this.problem = undefined;
    } catch (err) {
      this.problem = `the report could not be read: ${(err as Error).message}`;
    }
    this.changed();
  }

  private async readOnce(): Promise<void> {
    clearTimeout(this.timer);
    const wasRunning = this.view ? jobRunning(this.view.status) : undefined;
    try {
      this.view = await jobCalls.view(this.jobId);
      this.problem = undefined;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) this.notAJob = true;
      else this.problem = `the job could not be read: ${(err as Error).message}`;
    }
    this.changed();
    if (wasRunning === true && this.view && !jobRunning(this.view.status)) this.ended();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.closed || document.hidden || this.notAJob || (this.view && !jobRunning(this.view.status))) return;
    this.timer = setTimeout(() => void this.read(), POLL_MS);
  }

  /** A hidden tab reads nothing; shown again, it reads at once (as the operator view polls). */
  private readonly onVisibility = () => {
    if (document.hidden) clearTimeout(this.timer);
    else if (this.running && !this.notAJob) void this.read();
  };

  /** Runs an action, then reads the job at once; a failure is said (`problem`), not thrown. */
  private async act(what: string, action: () => Promise<unknown>): Promise<boolean> {
    try {
      await action();
      this.problem = undefined;
      // A read begun before the action may answer what it changed; the one after it may not.
      await this.reading;
      await this.read();
      return true;
    } catch (err) {
      this.problem = `${what}: ${(err as Error).message}`;
      this.changed();
      return false;
    }
  }

  private changed(): void {
    if (this.closed) return;
    for (const listener of this.listeners) listener();
  }
}
