import { createHash } from 'node:crypto';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptorsFactory, Next } from '@temporalio/worker';
import type { KV } from 'nats';
import type { RunningActivity } from '../../../contracts/worker-presence';

/** Bucket keys allow few characters: a digest of the task token is safe and fixed-length. */
function runningKey(taskToken: Uint8Array): string {
  return createHash('sha256').update(taskToken).digest('hex').slice(0, 40);
}

/**
 * Lists each activity this worker runs in the shared bucket while it runs (crash-watcher.ts reads it).
 * Writes never hold an activity up: the entry is put in the background, and removed once the put has
 * landed and the activity has ended. A lost write only means that activity falls back on Temporal's
 * heartbeat timeout should this worker die.
 */
export class RunningRegistry {
  constructor(
    private readonly kv: KV,
    readonly workerId: string,
    private readonly onError: (message: string) => void = () => undefined,
  ) {}

  /** Lists the activity; returns what removes it again. */
  add(entry: Omit<RunningActivity, 'worker_id'>, taskToken: Uint8Array): () => void {
    const key = runningKey(taskToken);
    const put = this.kv.put(key, JSON.stringify({ ...entry, worker_id: this.workerId } satisfies RunningActivity)).catch((err: unknown) => {
      this.onError(`could not list activity ${entry.activity_type} ${entry.activity_id}: ${(err as Error).message}`);
    });
    return () => {
      void put.then(() => this.kv.delete(key)).catch(() => undefined);
    };
  }

  /** The activity interceptor that lists every activity (local ones excepted: they die with their workflow task). */
  interceptor(): ActivityInterceptorsFactory {
    return (ctx) => ({
      inbound: new (class implements ActivityInboundCallsInterceptor {
        constructor(private readonly registry: RunningRegistry) {}
        async execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
          const info = ctx.info;
          if (info.isLocal || !info.workflowExecution) return next(input);
          const remove = this.registry.add(
            {
              task_token: Buffer.from(info.taskToken).toString('base64'),
              workflow_id: info.workflowExecution.workflowId,
              run_id: info.workflowExecution.runId,
              activity_id: info.activityId,
              activity_type: info.activityType,
              attempt: info.attempt,
            },
            info.taskToken,
          );
          try {
            return await next(input);
          } finally {
            remove();
          }
        }
      })(this),
    });
  }
}
