import './quiet-temporal';
import { WithStartWorkflowOperation } from '@temporalio/client';
import type { defineSearchAttributeKey } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkerOptions, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { binaryPaths } from '../../infra/bootstrap/paths';
import { freshSessionInput } from '../../contracts/session-workflow';
import { sessionWorkflowId } from '../../contracts/workflow-ids';
import { loadWorkflowBundle } from '../../services/worker/workflow-bundle';

/**
 * Workflow tests on the real local dev server (the bootstrapped Temporal CLI; the time-skipping server
 * does not model updates fully), with the worker's own workflow bundle. One server and one bundle per
 * test file, started in its beforeAll and torn down in its afterAll; each test runs its own Worker on
 * its own task queue, the way temporalio/samples-typescript tests do.
 */
export interface DevServerWorkers {
  /** The environment on the dev server; read it inside tests (it exists once beforeAll has run). */
  readonly env: TestWorkflowEnvironment;
  /** services/worker's workflow bundle, built once for the file. */
  readonly bundle: WorkflowBundleWithSourceMap;
  /** A worker on `taskQueue` with the bundle above (unless `options` names another) and `activities`. */
  worker(taskQueue: string, activities: WorkerOptions['activities'], options?: Partial<WorkerOptions>): Promise<Worker>;
}

export interface DevServerOptions {
  /** History length after which the server suggests continue-as-new (so a test sees it really happen). */
  suggestContinueAsNewAfter?: number;
  /** Custom search attributes the server registers at start (as `strand up`'s does, from contracts/task-queues.ts). */
  searchAttributes?: ReturnType<typeof defineSearchAttributeKey>[];
}

/** Registers the file's beforeAll/afterAll that start and stop the dev server and build the bundle. */
export function devServerWorkers(options: DevServerOptions = {}): DevServerWorkers {
  let env: TestWorkflowEnvironment | undefined;
  let bundle: WorkflowBundleWithSourceMap | undefined;
  const extraArgs = options.suggestContinueAsNewAfter === undefined ? [] : ['--dynamic-config-value', `limit.historyCount.suggestContinueAsNew=${options.suggestContinueAsNewAfter}`];
  beforeAll(async () => {
    [env, bundle] = await Promise.all([
      TestWorkflowEnvironment.createLocal({ server: { executable: { type: 'existing-path', path: binaryPaths().temporal }, extraArgs, ...(options.searchAttributes ? { searchAttributes: options.searchAttributes } : {}) } }),
      // From the worker's on-disk cache, as time-skipping-env.ts does (and says why).
      loadWorkflowBundle(),
    ]);
  }, 180_000);
  afterAll(async () => {
    await env?.teardown();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the dev server is not started yet: use it inside a test or a later hook');
    return value;
  };
  return {
    get env() {
      return started(env);
    },
    get bundle() {
      return started(bundle);
    },
    worker(taskQueue, activities, extra = {}) {
      return Worker.create({ connection: started(env).nativeConnection, taskQueue, workflowBundle: started(bundle), activities, ...extra });
    },
  };
}

/** The start half of update-with-start for a fresh session (`workflowId` defaults to the session's own). */
export function sessionStart(sessionId: string, taskQueue: string, workflowId = sessionWorkflowId(sessionId)) {
  return new WithStartWorkflowOperation('sessionWorkflow', { workflowId, taskQueue, args: [freshSessionInput(sessionId)], workflowIdConflictPolicy: 'USE_EXISTING' });
}

/** Reads until `ok` holds (polling every 100 ms); fails with the last value after `timeoutMs`. */
export async function waitFor<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
