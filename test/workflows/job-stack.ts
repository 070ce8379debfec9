import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { memoryPublishedText } from '../../activities/events/published-text';
import type { OutgoingEvent } from '../../activities/events/publisher';
import { createJobAftercareActivities } from '../../activities/job-notify';
import { createJobActivities } from '../../activities/job-workspace';
import { createJobVisibilityActivities } from '../../activities/job-visibility';
import { gitOk } from '../../activities/job-workspace/git';
import { jobAftercareWorkflowId } from '../../contracts/job-aftercare';
import { createProviderRegistry } from '../../activities/providers/registry';
import { createMemoryToolLedger } from '../../activities/tool-calls/ledger';
import { createToolWiring } from '../../services/worker/tool-wiring';
import { memoryStorePort, recordingPublisher } from '../harness/memory-store-port';
import { timeSkippingEnvAndBundle } from '../harness/time-skipping-env';

/**
 * The parts a job runs on, in this process: the real activities (the scripted provider playing the
 * scripts a test writes, the real tools in the job's workspace, the store's real domain logic in
 * memory, a recording event publisher) and the job's workspace activities on a real git repository
 * in a temporary folder. One per test, with its own task queue.
 */
export interface JobStack {
  repo: string;
  jobsDir: string;
  scriptsDir: string;
  taskQueue: string;
  worker: Worker;
  /** Every event the stack's activities and workflows published (local activities included), in order. */
  events: OutgoingEvent[];
  /** Writes `<name>.json` for the model `scripted/<name>` (activities/providers/scripts/README.md). */
  script(name: string, steps: unknown[][]): Promise<void>;
  cleanup(): Promise<void>;
}

export interface JobStackOptions {
  /** The worker's environment for the job's notification secrets. */
  env?: NodeJS.ProcessEnv;
  /**
   * STRAND_JOB_RETENTION_HOURS of this worker; default null (`never`): the time-skipping server would
   * otherwise skip to a finished job's removal timer while a later await of the same test waits, and a
   * removal left running when the test's worker stops locks its time skipping for the next tests.
   */
  retentionHours?: number | null;
  /** More activities on the same worker (a scheduled job's run records its ledger with them). */
  extraActivities?: object;
}

export async function jobStack(env: TestWorkflowEnvironment, bundle: WorkflowBundleWithSourceMap, taskQueue: string, options: JobStackOptions = {}): Promise<JobStack> {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'job-stack-'));
  const repo = path.join(tmp, 'repo');
  const jobsDir = path.join(tmp, 'jobs');
  const scriptsDir = path.join(tmp, 'scripts');
  await fs.mkdir(repo);
  await fs.mkdir(scriptsDir);
  await gitOk(repo, ['init', '--quiet', '--initial-branch', 'main']);
  await fs.writeFile(path.join(repo, 'README.md'), '# demo\n');
  await gitOk(repo, ['add', '-A']);
  await gitOk(repo, ['commit', '--quiet', '-m', 'first']);

  const { port, store } = await memoryStorePort();
  const events = recordingPublisher();
  const toolEnv = { ...process.env, STRAND_TOOL_OUTPUT_DIR: path.join(tmp, 'tool-output') };
  const activities = createActivities({
    store: port,
    events,
    providers: createProviderRegistry({ env: {}, scriptedOptions: { scriptsDir } }),
    ledger: createMemoryToolLedger(),
    publishedText: memoryPublishedText(events.events),
    ...createToolWiring(toolEnv),
  });
  const jobs = createJobActivities({ jobsDir, store: { ...port, ensure: async (r) => store.ensure(r) } });
  const aftercare = createJobAftercareActivities({ env: options.env ?? {}, retentionHours: options.retentionHours ?? null });
  const visibility = createJobVisibilityActivities({ connection: env.nativeConnection, namespace: env.namespace ?? 'default' });
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: { ...activities, ...jobs, ...aftercare, ...visibility, ...options.extraActivities } });
  return {
    repo,
    jobsDir,
    scriptsDir,
    taskQueue,
    worker,
    events: events.events,
    script: (name, steps) => fs.writeFile(path.join(scriptsDir, `${name}.json`), JSON.stringify({ steps })),
    cleanup: async () => {
      // Each job's aftercare (job:<id>:after) keeps a retention timer open for days, and this file's
      // server is shared: a timer of a test whose worker is gone would stop the next tests' time skipping.
      const ids = await fs.readdir(jobsDir).catch(() => [] as string[]);
      await Promise.all(ids.map((id) => env.client.workflow.getHandle(jobAftercareWorkflowId(id)).terminate('the test is over').catch(() => undefined)));
      await fs.rm(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * The lifecycle every job test file shares: one time-skipping server and workflow bundle per file, a
 * fresh job stack (its own repository and task queue) per test. Read the parts from the returned
 * object inside tests; they are set by the hooks this registers.
 */
export function useJobStack(options: JobStackOptions = {}): { readonly env: TestWorkflowEnvironment; readonly bundle: WorkflowBundleWithSourceMap; readonly stack: JobStack } {
  const parts = {} as { env: TestWorkflowEnvironment; bundle: WorkflowBundleWithSourceMap; stack: JobStack };
  beforeAll(async () => {
    [parts.env, parts.bundle] = await timeSkippingEnvAndBundle();
  }, 180_000);
  afterAll(async () => {
    await parts.env?.teardown();
  });
  beforeEach(async () => {
    parts.stack = await jobStack(parts.env, parts.bundle, `tq-${randomUUID()}`, options);
  }, 60_000);
  afterEach(async () => {
    await parts.stack?.cleanup();
  }, 60_000);
  return parts;
}
