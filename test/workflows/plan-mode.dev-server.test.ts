import '../harness/quiet-temporal';
import { randomUUID } from 'node:crypto';
import type { Activities } from '../../activities';
import { requiresApproval } from '../../contracts/approval-policy';
import { planModeRefusal } from '../../contracts/plan-mode';
import { approvalUpdate, promptUpdate, sessionStateQuery, setSettingsUpdate } from '../../contracts/session-workflow';
import { sessionSettingsSchema, type ApprovalPolicy } from '../../contracts/session-settings';
import { toolDefinition } from '../../contracts/tools';
import { devServerWorkers, sessionStart, waitFor } from '../harness/dev-server-worker';
import { createRecordingActivities } from '../harness/fake-activities';

/**
 * Plan mode in the workflows (docs/plan-mode.md): a session whose policy has `plan_mode` on runs a
 * read-only call, and never runs nor asks about a write: the turn records it as refused with plan
 * mode's text before the model's next step. Switched off, the next turn's write asks and runs.
 */
const dev = devServerWorkers();

test('plan mode: the read runs, the write is refused before the next step and nobody is asked; switched off, the next turn asks and runs it', async () => {
  const sessionId = `s-${randomUUID()}`;
  const taskQueue = `tq-${randomUUID()}`;
  const handle = dev.env.client.workflow.getHandle(`session:${sessionId}`);
  const fakes = createRecordingActivities({
    steps: [
      [
        { id: 'c1', name: 'read_file', requires_approval: false },
        { id: 'c2', name: 'write_file', requires_approval: false },
      ],
      [],
      [{ id: 'c3', name: 'write_file', requires_approval: false }],
      [],
    ],
  });
  // The session starts in plan mode; each model step announces its calls as the real activity does
  // (stream-model-step.ts), from the policy the turn hands it.
  const policies: ApprovalPolicy[] = [];
  const order: string[] = [];
  const activities: Activities = {
    ...fakes.activities,
    async loadSessionRecord(input) {
      const record = await fakes.activities.loadSessionRecord(input);
      return { ...record, settings: sessionSettingsSchema.parse({ ...record.settings, approval: { ...record.settings.approval, plan_mode: true } }) };
    },
    async streamModelStep(input) {
      policies.push(input.approval);
      order.push(`model ${input.turn_id}:${input.step}`);
      const r = await fakes.activities.streamModelStep(input);
      return { ...r, tool_calls: r.tool_calls.map((c) => ({ ...c, requires_approval: requiresApproval(input.approval, { name: c.name, readOnly: toolDefinition(c.name)?.readOnly ?? false }) })) };
    },
    async recordToolResults(input) {
      order.push(`results ${input.turn_id}:${input.step}`);
      return fakes.activities.recordToolResults(input);
    },
  };
  const worker = await dev.worker(taskQueue, activities);
  await worker.runUntil(async () => {
    await dev.env.client.workflow.executeUpdateWithStart(promptUpdate, { args: [{ text: 'write it' }], startWorkflowOperation: sessionStart(sessionId, taskQueue) });
    await waitFor(() => handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.last_turn === 1);

    expect(policies[0]).toMatchObject({ plan_mode: true });
    expect(fakes.toolRuns).toEqual(['c1']);
    expect(fakes.toolResults[0]).toEqual({ step: 0, calls: [{ id: 'c1', disposition: 'ran' }, { id: 'c2', disposition: 'refused', reason: planModeRefusal('write_file') }] });
    // Recorded before the model's next step, which therefore reads it.
    expect(order).toEqual(['model t1:0', 'results t1:0', 'model t1:1']);
    const kinds = fakes.published.map((p) => p.event.event.type);
    expect(kinds).not.toContain('approval.resolved');
    expect(fakes.published.some((p) => p.event.event.type === 'session.state' && p.event.event.phase === 'waiting_approval')).toBe(false);

    // Off: applies from the next turn; the write now asks (the default policy) and runs once approved.
    const settings = await handle.executeUpdate(setSettingsUpdate, { args: [{ approval: { plan_mode: false } }] });
    expect(settings.approval).toMatchObject({ plan_mode: false, auto_approve_readonly: true, always_allow: [], timeout_s: 600 });
    await handle.executeUpdate(promptUpdate, { args: [{ text: 'now do it' }] });
    await waitFor(() => handle.query(sessionStateQuery), (st) => st.pending_approvals.length === 1);
    await handle.executeUpdate(approvalUpdate, { args: [{ tool_call_id: 'c3', decision: 'approve' }] });
    await waitFor(() => handle.query(sessionStateQuery), (st) => st.phase === 'idle' && st.last_turn === 2);
    expect(policies.at(-1)).toMatchObject({ plan_mode: false });
    expect(fakes.toolRuns).toEqual(['c1', 'c3']);
    expect(fakes.toolResults[1]).toEqual({ step: 0, calls: [{ id: 'c3', disposition: 'ran' }] });
    await handle.terminate('test done');
  });
}, 90_000);
