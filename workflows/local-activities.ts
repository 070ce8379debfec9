import * as wf from '@temporalio/workflow';
import type { Activities } from '../activities';
import { storeRetry } from './retry-policies';

/** Patch id (2026-11) of local activities run one at a time; deprecate once no older run is open. */
const LOCAL_ACTIVITIES_IN_ORDER = 'local-activities-in-order';

const direct = wf.proxyLocalActivities<Activities>({ startToCloseTimeout: '30 seconds', retry: storeRetry });

/** Kept on the workflow's own globalThis, which the SDK gives each workflow (module state may be shared by runs in one V8 context). */
const QUEUE = '__strandLocalActivityQueue';
interface Queue {
  tail: Promise<unknown>;
  running: number;
  /** The run's input said so (see declareLocalActivitiesInOrder): no patch asked. */
  declared?: boolean;
}

function queueOfRun(): Queue {
  const g = globalThis as unknown as Record<string, Queue | undefined>;
  return (g[QUEUE] ??= { tail: Promise.resolve(), running: 0 });
}

/**
 * For a run whose starter said in its input that it runs its local activities in order (a turn
 * started with `local_activities_in_order`): in order without asking `patched()`, whose marker and
 * TemporalChangeVersion upsert (a visibility write) every turn's first local activity paid. Called
 * before the run's first local activity.
 */
export function declareLocalActivitiesInOrder(): void {
  queueOfRun().declared = true;
}

/**
 * Runs `call` once every local activity started before it has settled (since LOCAL_ACTIVITIES_IN_ORDER).
 * Two local activities in flight at once resolve in whatever order they finish, and a workflow's next
 * commands can depend on that order (a settings update's persist finishing after the turn start's
 * publish let the update complete before the child turn existed). Replay does not reproduce such an
 * order: a worker that took a session over after another was killed failed every workflow task with
 * "No command scheduled for event … WorkflowExecutionUpdateCompleted", and the session was stuck
 * (`npm run bench:load`). One at a time, the order is the order they were asked for, in both. The
 * local activities are each a few milliseconds (store and NATS writes), so nothing waits long.
 */
function inOrder<T>(call: () => Promise<T>): Promise<T> {
  const queue = queueOfRun();
  if (!queue.declared && !wf.patched(LOCAL_ACTIVITIES_IN_ORDER)) return call();
  // Nothing in flight: started at once, so the commands of this activation keep their order.
  const started = queue.running === 0 ? call() : queue.tail.then(call);
  queue.running += 1;
  const settled = started.then(
    () => undefined,
    () => undefined,
  );
  queue.tail = settled.then(() => void (queue.running -= 1));
  return started;
}

/** The workflows' local activities (store and NATS writes run in-process with the workflow task), one at a time. */
export const local: typeof direct = new Proxy(direct, {
  get(target, name: string) {
    const fn = target[name as keyof Activities] as (...args: unknown[]) => Promise<unknown>;
    return (...args: unknown[]) => inOrder(() => fn(...args));
  },
}) as typeof direct;
