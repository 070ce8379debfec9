import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { gitOk } from '../../activities/job-workspace/git';
import { httpAs, startTestStack, type TestStack, type TestStackOptions } from './stack-fixture';

/**
 * The setup every end-to-end jobs test shares (docs/jobs.md): a temporary folder holding a git
 * repository with one commit on `main` (what a job's workspace is made from), a scripts folder for
 * the scripted model and the jobs folder, and a whole stack whose worker uses both; plus the calls a
 * test makes of it (the gateway as a principal, polling a job, a Temporal client).
 */
export interface JobE2eStack {
  stack: TestStack;
  tmp: string;
  repo: string;
  scripts: string;
  /** The stack worker's STRAND_JOBS_DIR. */
  jobsDir: string;
  /** Writes `<name>.json` for the model `scripted/<name>` (activities/providers/scripts/README.md). */
  script(name: string, steps: unknown[][]): void;
  /** JSON over HTTP against the gateway with `Authorization: Bearer <token>` (stack-fixture.ts, httpAs). */
  as(token: string, method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  /** A spec whose model is `scripted/<model>` and whose prompt is `run <model>`, on the fixture's repository. */
  spec(model: string, extra?: Record<string, unknown>): Record<string, unknown>;
  /** A job started through `POST /api/jobs` (202), its id. */
  startJob(token: string, spec: unknown): Promise<string>;
  /** Polls `GET /api/jobs/{id}` as `token` until `done` holds; the view then. */
  jobUntil(token: string, id: string, done: (view: any) => boolean, timeoutMs?: number): Promise<any>;
  /** A Temporal client of the stack's server, connected on first use and closed by teardown. */
  temporal(): Promise<Client>;
  teardown(): Promise<void>;
}

/** A git repository with one commit (README.md) on `main`. */
async function makeJobRepo(repo: string): Promise<void> {
  fs.mkdirSync(repo, { recursive: true });
  await gitOk(repo, ['init', '--quiet', '--initial-branch', 'main']);
  fs.writeFileSync(path.join(repo, 'README.md'), '# demo\n');
  await gitOk(repo, ['add', '-A']);
  await gitOk(repo, ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '--quiet', '-m', 'first']);
}

/** The job's session exists: its workspace is made (any phase after `preparing`), or the job has ended. */
export const jobHasSession = (view: any): boolean => view.status !== 'running' || (!!view.progress && view.progress.phase !== 'preparing');

/**
 * Starts the stack with `env` over the fixture's own (STRAND_SCRIPTS_DIR, STRAND_JOBS_DIR), in a
 * temporary folder named after `prefix`.
 */
export async function startJobE2eStack(prefix: string, env: NodeJS.ProcessEnv = {}, options: TestStackOptions = {}): Promise<JobE2eStack> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
  const scripts = path.join(tmp, 'scripts');
  const repo = path.join(tmp, 'repo');
  const jobsDir = path.join(tmp, 'jobs');
  fs.mkdirSync(scripts);
  let stack: TestStack;
  try {
    await makeJobRepo(repo);
    stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts, STRAND_JOBS_DIR: jobsDir, ...env }, options);
  } catch (err) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  let connection: Connection | undefined;
  let client: Client | undefined;
  const as: JobE2eStack['as'] = (token, method, route, body, headers = {}) => httpAs(stack.urls.gateway, token, method, route, body, headers);
  return {
    stack,
    tmp,
    repo,
    scripts,
    jobsDir,
    script: (name, steps) => fs.writeFileSync(path.join(scripts, `${name}.json`), JSON.stringify({ steps })),
    as,
    spec: (model, extra = {}) => ({ version: 1, task: { prompt: `run ${model}`, project_path: repo, model: `scripted/${model}` }, ...extra }),
    async startJob(token, spec) {
      const started = await as(token, 'POST', '/api/jobs', spec);
      if (started.status !== 202) throw new Error(`POST /api/jobs answered ${started.status}: ${JSON.stringify(started.body)}`);
      return started.body.job_id as string;
    },
    async jobUntil(token, id, done, timeoutMs = 90_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const view = await as(token, 'GET', `/api/jobs/${id}`);
        if (view.status !== 200) throw new Error(`GET /api/jobs/${id} answered ${view.status}: ${JSON.stringify(view.body)}`);
        if (done(view.body)) return view.body;
        if (Date.now() > deadline) throw new Error(`job ${id} never got there: ${JSON.stringify(view.body)}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async temporal() {
      connection ??= await Connection.connect({ address: stack.urls.temporal });
      client ??= new Client({ connection });
      return client;
    },
    async teardown() {
      await connection?.close();
      await stack.teardown();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}
