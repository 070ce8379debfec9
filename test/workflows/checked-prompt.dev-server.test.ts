import '../harness/quiet-temporal';
import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { ErrorCode, StrandError } from '../../contracts/errors';
import { freshSessionInput, sessionStateQuery } from '../../contracts/session-workflow';
import { sessionWorkflowId } from '../../contracts/workflow-ids';
import { searchAttributeKeys } from '../../contracts/search-attributes';
import { SessionCommands, type SessionStartInfo } from '../../services/gateway/temporal/session-commands';
import { TemporalLink } from '../../services/gateway/temporal/temporal-link';
import { devServerWorkers, waitFor } from '../harness/dev-server-worker';
import { createRecordingActivities } from '../harness/fake-activities';

/**
 * A prompt sent to a running session without a store read (SessionCommands.promptRunning, the
 * `checkedPrompt` update), on the real dev server with the worker's own bundle: the run refuses
 * another principal's prompt exactly as the store read does, takes its owner's, and answers
 * "read the store first" (undefined) whenever it cannot decide: no run open (never started, or ended as
 * a delete ends it), a job's session, a run started without its access facts, and a worker whose code
 * has no handler for the update (a deploy before this change). None of the refused prompts reaches history.
 */
// The session attributes SessionCommands starts a run with (as `strand up` registers them).
const { sessionId, projectPath, model, phase, owner } = searchAttributeKeys;
const dev = devServerWorkers({ searchAttributes: [sessionId, projectPath, model, phase, owner] });
let oldWorkerBundle: WorkflowBundleWithSourceMap;
let link: TemporalLink;

beforeAll(async () => {
  oldWorkerBundle = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'fixtures', 'pre-checked-prompt', 'session-workflow.ts'), logger: { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } });
  link = new TemporalLink(dev.env.address, 'default');
  await waitFor(async () => link.current !== undefined, Boolean);
}, 240_000);
afterAll(async () => {
  await link?.close();
});

const info = (extra: Partial<SessionStartInfo> = {}): SessionStartInfo => ({ session_id: `s-${randomUUID()}`, project_path: '/p', model: 'scripted/echo', ...extra });
const failure = (p: Promise<unknown>) => p.then(() => undefined, (err: unknown) => err);
const acceptedUpdates = async (sessionId: string) =>
  ((await dev.env.client.workflow.getHandle(sessionWorkflowId(sessionId)).fetchHistory()).events ?? []).filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length;

test("the owner's prompt starts a turn; another principal's is SESSION_NOT_FOUND as for an unknown session, and never reaches history", async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const commands = new SessionCommands(link, taskQueue);
  const fakes = createRecordingActivities();
  fakes.hold();
  const worker = await dev.worker(taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    const session = info({ owner: 'alice' });
    await commands.ensureRunning(session);
    const refused = await failure(commands.promptRunning(session.session_id, 'bob', { text: 'hi', request_id: 'r-bob' }));
    expect(refused).toBeInstanceOf(StrandError);
    expect([(refused as StrandError).code, (refused as StrandError).message]).toEqual([ErrorCode.SESSION_NOT_FOUND, `no session ${session.session_id}`]);
    expect(await acceptedUpdates(session.session_id)).toBe(0);

    expect(await commands.promptRunning(session.session_id, 'alice', { text: 'hi', request_id: 'r1' })).toMatchObject({ turn_id: 't1', turn_number: 1, queued: false, duplicate: false });
    // The ordinary prompt checks still apply after the caller's: busy, then queued.
    expect(((await failure(commands.promptRunning(session.session_id, 'alice', { text: 'again' }))) as StrandError).code).toBe(ErrorCode.SESSION_BUSY);
    expect(await commands.promptRunning(session.session_id, 'alice', { text: 'later', behavior: 'queue' })).toMatchObject({ turn_id: 't2', queued: true });
    // Another principal replaying the owner's request id is refused too: Temporal answers a repeated
    // update id with its first outcome before any validator runs, so the update id is the caller's own.
    expect(((await failure(commands.promptRunning(session.session_id, 'bob', { text: 'hi', request_id: 'r1' }))) as StrandError).code).toBe(ErrorCode.SESSION_NOT_FOUND);
    // The owner's repeat is answered with its turn.
    expect(await commands.promptRunning(session.session_id, 'alice', { text: 'hi', request_id: 'r1' })).toMatchObject({ turn_id: 't1' });
    fakes.release();
    await waitFor(() => dev.env.client.workflow.getHandle(sessionWorkflowId(session.session_id)).query(sessionStateQuery), (s) => s.phase === 'idle' && s.last_turn === 2);
    expect(fakes.userMessages.map((m) => m.entry_id)).toEqual(['t1:user', 't2:user']);
    // Auth off (no principal): anyone may, as with the store read.
    const open = info();
    await commands.ensureRunning(open);
    expect(await commands.promptRunning(open.session_id, undefined, { text: 'hi' })).toMatchObject({ queued: false, duplicate: false });
    await commands.close(session.session_id, 'test done');
    await commands.close(open.session_id, 'test done');
  });
}, 90_000);

test('the store is read first (undefined) for no run, a deleted session, a job\'s session and a run started without its access facts', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const commands = new SessionCommands(link, taskQueue);
  const fakes = createRecordingActivities();
  const worker = await dev.worker(taskQueue, fakes.activities);
  await worker.runUntil(async () => {
    expect(await commands.promptRunning(`s-${randomUUID()}`, 'alice', { text: 'hi' })).toBeUndefined();

    const deleted = info({ owner: 'alice' });
    await commands.ensureRunning(deleted);
    await commands.close(deleted.session_id, 'session deleted');
    expect(await commands.promptRunning(deleted.session_id, 'alice', { text: 'hi' })).toBeUndefined();

    const job = info({ owner: 'alice', job_id: 'j1' });
    await commands.ensureRunning(job);
    expect(await commands.promptRunning(job.session_id, 'alice', { text: 'hi' })).toBeUndefined();
    // Another principal's job session: the owner check comes first, as the store read's does.
    expect(((await failure(commands.promptRunning(job.session_id, 'bob', { text: 'hi' }))) as StrandError).code).toBe(ErrorCode.SESSION_NOT_FOUND);
    expect(await acceptedUpdates(job.session_id)).toBe(0);

    // A run an older gateway started: its input has no access facts, so it cannot check.
    const older = info({ owner: 'alice' });
    await dev.env.client.workflow.start('sessionWorkflow', { workflowId: sessionWorkflowId(older.session_id), taskQueue, args: [freshSessionInput(older.session_id)] });
    expect(await commands.promptRunning(older.session_id, 'bob', { text: 'hi' })).toBeUndefined();
    expect(await acceptedUpdates(older.session_id)).toBe(0);
    for (const s of [job, older]) await commands.close(s.session_id, 'test done');
  });
}, 90_000);

test('a worker without the checkedPrompt handler refuses it (never ignores it): the store is read first', async () => {
  const taskQueue = `tq-${randomUUID()}`;
  const commands = new SessionCommands(link, taskQueue);
  const worker = await dev.worker(taskQueue, {}, { workflowBundle: oldWorkerBundle });
  await worker.runUntil(async () => {
    const session = info({ owner: 'alice' });
    await commands.ensureRunning(session);
    expect(await commands.promptRunning(session.session_id, 'bob', { text: 'hi' })).toBeUndefined();
    expect(await acceptedUpdates(session.session_id)).toBe(0);
    await commands.close(session.session_id, 'test done');
  });
}, 90_000);
