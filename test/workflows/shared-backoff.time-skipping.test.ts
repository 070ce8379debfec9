import '../harness/quiet-temporal';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { promptUpdate, type SessionWorkflowResult } from '../../contracts/session-workflow';
import { createRecordingActivities } from '../harness/fake-activities';
import { timeSkippingEnvAndBundle } from '../harness/time-skipping-env';

/**
 * The turn under a sustained provider limit, on the time-skipping test server: waits the provider
 * key's shared backoff imposed (nothing sent) are waited exactly and counted apart, so a turn that
 * waited many windows still has all its attempts for real refusals — where the same number of real
 * refusals would have ended it.
 */
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, bundle] = await timeSkippingEnvAndBundle();
}, 120_000);

afterAll(async () => {
  await env?.teardown();
});

const HOUR = 60 * 60 * 1000;
const refused = (retryAfterMs: number) =>
  ApplicationFailure.create({ message: 'openai: HTTP 429: slow down', type: 'provider.rate_limited', nonRetryable: true, details: [{ provider: 'openai', status: 429, retry_after_ms: retryAfterMs }] });
const sharedWait = (waitMs: number) =>
  ApplicationFailure.create({ message: 'openai: shared backoff: a request with this key got HTTP 429', type: 'provider.rate_limited', nonRetryable: true, details: [{ provider: 'openai', retry_after_ms: waitMs, shared_backoff: true }] });

async function runTurn(failures: unknown[]) {
  const taskQueue = `tq-${randomUUID()}`;
  const fakes = createRecordingActivities({ failures });
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: fakes.activities });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('sessionWorkflow', { taskQueue, workflowId: `session:${randomUUID()}`, args: [{ session_id: `s-${randomUUID()}`, idle_timeout_ms: HOUR }] });
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'hi' }] });
    expect((await handle.result()) as SessionWorkflowResult).toEqual({ reason: 'idle', last_turn: 1 });
  });
  const events = fakes.published.map((p) => p.event.event);
  return { fakes, events, retries: events.filter((e) => e.type === 'retry.scheduled') as Array<{ attempt: number; max_attempts: number; delay_ms: number; reason: string }> };
}

test('ten shared waits and five real refusals: the turn finishes; each wait lasts its window', async () => {
  // Real refusals 1–5 between the waits; a sixth real one would end the turn (5 retries).
  const failures = [refused(20_000), sharedWait(41_500), sharedWait(12_345), refused(30_000), sharedWait(59_000), sharedWait(500), refused(5_000), sharedWait(45_000), sharedWait(45_000), refused(5_000), sharedWait(1), sharedWait(30_000), sharedWait(30_000), refused(10_000), sharedWait(2_000)];
  const count = failures.length; // the fakes consume the list
  const { events, retries, fakes } = await runTurn(failures);
  expect(events.find((e) => e.type === 'turn.finished')).toMatchObject({ outcome: 'done' });
  expect(fakes.modelSteps).toHaveLength(count + 1);
  expect(retries.map((r) => [r.attempt, r.max_attempts, r.delay_ms, /shared backoff/.test(r.reason) ? 'wait' : 'refused'])).toEqual([
    [1, 6, 20_000, 'refused'],
    [1, 60, 41_500, 'wait'],
    [2, 60, 12_345, 'wait'],
    [2, 6, 30_000, 'refused'],
    [3, 60, 59_000, 'wait'],
    [4, 60, 500, 'wait'],
    [3, 6, 5_000, 'refused'],
    [5, 60, 45_000, 'wait'],
    [6, 60, 45_000, 'wait'],
    [4, 6, 5_000, 'refused'],
    [7, 60, 1, 'wait'],
    [8, 60, 30_000, 'wait'],
    [9, 60, 30_000, 'wait'],
    [5, 6, 10_000, 'refused'],
    [10, 60, 2_000, 'wait'],
  ]);
}, 60_000);

test('the same fifteen failures as real refusals end the turn after its sixth attempt', async () => {
  const { events, fakes } = await runTurn(Array.from({ length: 15 }, () => refused(1_000)));
  expect(events.find((e) => e.type === 'turn.finished')).toMatchObject({ outcome: 'error' });
  expect(fakes.modelSteps).toHaveLength(6);
}, 60_000);
