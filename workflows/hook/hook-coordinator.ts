import * as wf from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import {
  hookCoordinatorViewQuery,
  hookDeliverySchema,
  hookDeliveryUpdate,
  type HookCoordinatorInput,
  type HookDeliveryReply,
} from '../../contracts/job-hook';
import type { JobReport } from '../../contracts/job-report';
import { JOB_WORKFLOW_TYPE, jobWorkflowId, type JobWorkflowInput } from '../../contracts/job-workflow';

/** Delivery ids remembered; older ones are still caught by the job's own workflow id (see startJob). */
const MAX_SEEN = 1_000;
/** Past this many history events an idle coordinator continues as new, carrying what it remembers. */
const MAX_HISTORY = 5_000;
const DEFAULT_IDLE_TIMEOUT_MS = 60 * 60 * 1000;

type Delivery = ReturnType<typeof hookDeliverySchema.parse>;

/**
 * One coordinator per (hook, key): `hook:<name>:<key>` (docs/jobs.md, "Triggers"). Deliveries arrive
 * as updates (update-with-start from any gateway) and are handled one at a time, so two gateways
 * receiving two deliveries at once cannot both start a job: the coordinator owns the order, the
 * delivery ids already answered, and runs the jobs as children. The supersede rule decides what a
 * delivery does while a job of its key runs: `cancel` the older one and start, `queue` behind it, or
 * be `ignore`d; a hook without a key runs every delivery at once (`parallel`). It ends after an idle
 * time with nothing running or queued; a later delivery starts a new one.
 */
export async function hookCoordinatorWorkflow(input: HookCoordinatorInput): Promise<void> {
  const c = new Coordinator(input);
  wf.setHandler(hookDeliveryUpdate, (d) => c.serially(() => c.deliver(hookDeliverySchema.parse(d))), {
    validator: (d) => void hookDeliverySchema.parse(d),
  });
  wf.setHandler(hookCoordinatorViewQuery, () => ({ running: [...c.running], queued: c.queue.map((d) => d.job_id), seen: c.seen.size }));
  for (;;) {
    await wf.condition(() => c.idle() && wf.allHandlersFinished());
    const info = wf.workflowInfo();
    if (info.continueAsNewSuggested || info.historyLength > MAX_HISTORY) {
      await wf.continueAsNew<typeof hookCoordinatorWorkflow>({ ...input, seen: [...c.seen].map(([delivery_id, job_id]) => ({ delivery_id, job_id })) });
    }
    const woke = await wf.condition(() => !c.idle(), input.idle_timeout_ms ?? DEFAULT_IDLE_TIMEOUT_MS);
    if (!woke && wf.allHandlersFinished()) return;
  }
}

class Coordinator {
  /** Delivery id → the job it started or queued (null: ignored), oldest first. */
  readonly seen = new Map<string, string | null>();
  /** Jobs started and not yet ended. */
  readonly running = new Set<string>();
  /** Deliveries waiting for the running job to end (`queue`). */
  readonly queue: Delivery[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private pending = 0;

  constructor(private readonly input: HookCoordinatorInput) {
    for (const s of input.seen ?? []) this.seen.set(s.delivery_id, s.job_id);
  }

  idle(): boolean {
    return this.pending === 0 && this.running.size === 0 && this.queue.length === 0;
  }

  /** Runs `fn` after every earlier one has finished: deliveries and job ends are handled in order, one at a time. */
  serially<T>(fn: () => Promise<T>): Promise<T> {
    this.pending++;
    const run = this.chain.then(fn).finally(() => this.pending--);
    this.chain = run.catch(() => undefined);
    return run;
  }

  async deliver(d: Delivery): Promise<HookDeliveryReply> {
    const reply = (job_id: string | null, outcome: HookDeliveryReply['outcome']): HookDeliveryReply => ({ delivery_id: d.delivery_id, job_id, outcome });
    if (this.seen.has(d.delivery_id)) return reply(this.seen.get(d.delivery_id) ?? null, 'duplicate');
    const busy = this.running.size > 0 || this.queue.length > 0;
    let answer: HookDeliveryReply;
    if (!busy || d.mode === 'parallel') {
      answer = reply(d.job_id, (await this.startJob(d)) ? 'started' : 'duplicate');
    } else if (d.mode === 'ignore') {
      answer = reply(null, 'ignored');
    } else if (d.mode === 'queue') {
      this.queue.push(d);
      answer = reply(d.job_id, 'queued');
    } else {
      // cancel: the newest delivery supersedes everything before it, running or waiting.
      this.queue.splice(0);
      for (const job of this.running) await cancelJob(job);
      answer = reply(d.job_id, (await this.startJob(d)) ? 'started' : 'duplicate');
    }
    this.remember(d.delivery_id, answer.job_id);
    return answer;
  }

  /**
   * Starts the delivery's job as a child; false when `job:<id>` exists already (the job id is derived
   * from the delivery id, so a delivery this coordinator has forgotten, or one a finished coordinator
   * answered, still starts no second job). Abandoned when the coordinator closes: a job is a unit of
   * its own, cancelled by its id.
   */
  private async startJob(d: Delivery): Promise<boolean> {
    const args: [JobWorkflowInput] = [{ job_id: d.job_id, spec: d.spec }];
    let child: wf.ChildWorkflowHandle<(i: JobWorkflowInput) => Promise<JobReport>>;
    try {
      child = await wf.startChild<(i: JobWorkflowInput) => Promise<JobReport>>(JOB_WORKFLOW_TYPE, {
        workflowId: jobWorkflowId(d.job_id),
        taskQueue: wf.workflowInfo().taskQueue,
        args,
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        parentClosePolicy: 'ABANDON',
        staticSummary: `hook ${this.input.hook}${this.input.key === null ? '' : ` (${this.input.key})`}: delivery ${d.delivery_id}`,
      });
    } catch (err) {
      if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
      throw err;
    }
    this.running.add(d.job_id);
    void child
      .result()
      .catch(() => undefined)
      .then(() => this.serially(() => this.ended(d.job_id)));
    return true;
  }

  /** A job ended: the next queued delivery whose job can start does. */
  private async ended(jobId: string): Promise<void> {
    this.running.delete(jobId);
    while (this.running.size === 0 && this.queue.length > 0) await this.startJob(this.queue.shift()!);
  }

  private remember(deliveryId: string, jobId: string | null): void {
    this.seen.set(deliveryId, jobId);
    while (this.seen.size > MAX_SEEN) this.seen.delete(this.seen.keys().next().value!);
  }
}

/**
 * Asks a running job to stop (it collects and reports `cancelled`). A job that ended in the meantime
 * (its end not yet handled here: both can arrive in one activation) refuses the request: nothing to do.
 */
async function cancelJob(jobId: string): Promise<void> {
  try {
    await wf.getExternalWorkflowHandle(jobWorkflowId(jobId)).cancel();
  } catch (err) {
    if (!(err instanceof wf.TemporalFailure)) throw err;
  }
}
