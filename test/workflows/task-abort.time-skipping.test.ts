import '../harness/quiet-temporal';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Context } from '@temporalio/activity';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import { abortUpdate, promptUpdate } from '../../contracts/session-workflow';
import { subagentWorkflowId, turnWorkflowId } from '../../contracts/workflow-ids';
import { createRecordingActivities } from '../harness/fake-activities';
import { timeSkippingEnvAndBundle } from '../harness/time-skipping-env';

/**
 * An abort of a turn whose step runs two sub-agents (`task` calls): the turn ends only after both
 * children have stopped, so both end CANCELLED. Before, the batch ended at the first child's
 * cancellation and the turn closed while the other was still stopping: Temporal then terminated it
 * (its parent close policy), which a busy machine made visible in the sub-agents' e2e test.
 */
let env: TestWorkflowEnvironment;
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  [env, bundle] = await timeSkippingEnvAndBundle();
}, 120_000);

afterAll(async () => {
  await env?.teardown();
});

test('aborting a turn cancels both sub-agents and waits for the slower one to stop', async () => {
  const fakes = createRecordingActivities({ steps: [[{ id: 'task_a', name: 'task', requires_approval: false }, { id: 'task_b', name: 'task', requires_approval: false }]] });
  fakes.activities.startSubagent = async (input) => ({ started: true, session_id: `sub-${input.call_id}`, prompt: 'look around', description: 'look', max_steps: 5, tools: ['read_file'] });
  const streaming = new Set<string>();
  const parentStream = fakes.activities.streamModelStep;
  fakes.activities.streamModelStep = async (input) => {
    if (!input.session_id.startsWith('sub-')) return parentStream(input);
    streaming.add(input.session_id);
    try {
      // A sub-agent's answer that streams until it is cancelled, as a real provider call does.
      for (;;) {
        Context.current().heartbeat();
        await Context.current().sleep(50);
      }
    } catch (err) {
      // task_b takes a moment to stop (a provider stream being closed): task_a has long ended by then.
      if (input.session_id === 'sub-task_b') await new Promise((r) => setTimeout(r, 1_500));
      throw err;
    }
  };
  const sessionId = `s-${randomUUID()}`;
  const taskQueue = `tq-${randomUUID()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, workflowBundle: bundle, activities: fakes.activities });
  await worker.runUntil(async () => {
    const handle = await env.client.workflow.start('sessionWorkflow', { taskQueue, workflowId: `session:${randomUUID()}`, args: [{ session_id: sessionId, idle_timeout_ms: 60 * 60 * 1000, turns_publish_state: true }] });
    try {
      await handle.executeUpdate(promptUpdate, { args: [{ text: 'delegate both' }] });
      for (let i = 0; streaming.size < 2; i++) {
        if (i > 600) throw new Error('the sub-agents never started streaming');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(await handle.executeUpdate(abortUpdate, { args: [{}] })).toMatchObject({ aborted: true, turn_id: 't1' });
      const turn = turnWorkflowId(sessionId, 1);
      await env.client.workflow.getHandle(turn).result();
      for (const call of ['task_a', 'task_b']) {
        const d = await env.client.workflow.getHandle(subagentWorkflowId(turn, call)).describe();
        expect({ call, status: d.status.name }).toEqual({ call, status: 'CANCELLED' });
      }
    } finally {
      // The session may have ended on its own (time skips past its idle timeout while the test waits).
      await handle.terminate('test done').catch(() => undefined);
    }
  });
}, 90_000);
