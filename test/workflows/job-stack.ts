import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { memoryPublishedText } from '../../activities/events/published-text';
import { createJobActivities } from '../../activities/job-workspace';
import { gitOk } from '../../activities/job-workspace/git';
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
  /** Writes `<name>.json` for the model `scripted/<name>` (activities/providers/scripts/README.md). */
  script(name: string, steps: unknown[][]): Promise<void>;
  cleanup(): Promise<void>;
}

/** `extraActivities`: more activities on the same worker (a scheduled job's run records its ledger with them). */
export async function jobStack(env: TestWorkflowEnvironment, bundle: WorkflowBundleWithSourceMap, taskQueue: string, extraActivities: object = {}): Promise<JobStack> {
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
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: { ...activities, ...jobs, ...extraActivities } });
  return {
    repo,
    jobsDir,
    scriptsDir,
    taskQueue,
    worker,
    script: (name, steps) => fs.writeFile(path.join(scriptsDir, `${name}.json`), JSON.stringify({ steps })),
    cleanup: () => fs.rm(tmp, { recursive: true, force: true }),
  };
}

/**
 * The lifecycle every job test file shares: one time-skipping server and workflow bundle per file, a
 * fresh job stack (its own repository and task queue) per test. Read the parts from the returned
 * object inside tests; they are set by the hooks this registers.
 */
export function useJobStack(): { readonly env: TestWorkflowEnvironment; readonly bundle: WorkflowBundleWithSourceMap; readonly stack: JobStack } {
  const parts = {} as { env: TestWorkflowEnvironment; bundle: WorkflowBundleWithSourceMap; stack: JobStack };
  beforeAll(async () => {
    [parts.env, parts.bundle] = await timeSkippingEnvAndBundle();
  }, 180_000);
  afterAll(async () => {
    await parts.env?.teardown();
  });
  beforeEach(async () => {
    parts.stack = await jobStack(parts.env, parts.bundle, `tq-${randomUUID()}`);
  });
  afterEach(async () => {
    await parts.stack?.cleanup();
  });
  return parts;
}
