import '../harness/quiet-temporal';
import { Context } from '@temporalio/activity';
import { ApplicationFailure, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { checkpointsUpdate } from '../../contracts/checkpoints';
import {
  abortUpdate,
  approvalUpdate,
  clearQueueUpdate,
  compactUpdate,
  interruptUpdate,
  promptUpdate,
  sessionStateQuery,
  setSettingsUpdate,
  steerUpdate,
  userCommandUpdate,
  type SessionSnapshot,
} from '../../contracts/session-workflow';
import { createRecordingActivities } from '../harness/fake-activities';
import { seededRandom } from '../harness/seeded-random';
import { devServerWorkers } from '../harness/dev-server-worker';

/**
 * A property test of the session workflow's handlers: random interleavings (seeded) of prompts,
 * aborts, interrupts and steering (by turn id or not), clear_queue, settings, compaction, a user's
 * command, a revert and approvals, against fake activities whose model steps stream until the test
 * lets them finish (or an abort cancels them). After every step: the phase is idle exactly when
 * nothing runs or waits. Every update answers or is refused by its validator (never an internal
 * error); at the end every accepted turn has ended once, and no turn an abort reported `aborted` ended otherwise.
 *
 *   PROPERTY_SEED=123 npx jest test/workflows/session-handlers.property.dev-server.test.ts
 *
 * On the local dev server, not the time-skipping one: nothing here waits on workflow time, and the
 * interleavings include an abort that reaches a turn while its model step is finishing. When that
 * step's completion reaches the server during the turn's workflow task that cancels it, a real server
 * records the cancel request and then the completion; Temporal's Java time-skipping server instead
 * refuses the task's completion (FAILED_PRECONDITION `ACTIVITY_UNKNOWN for scheduledEventId=…`: it has
 * already dropped the activity) and the turn never gets another task, so the file hung on it.
 */
const RUNS = 10;
const STEPS = 20;
const BASE_SEED = Number(process.env.PROPERTY_SEED ?? 20261128);
/** Refusals a validator may answer (the command never reached history). */
const REFUSALS = new Set(['NOTHING_RUNNING', 'SESSION_BUSY', 'UNKNOWN_TOOL_CALL']);

const temporal = devServerWorkers();

interface Run {
  handle: WorkflowHandle;
  rnd: () => number;
  release: () => void;
  inFlight: Set<Promise<unknown>>;
  /** Compactions, user commands and reverts sent and not answered. */
  exclusive: number;
  accepted: string[];
  abortedTurns: string[];
  errors: string[];
}

const pick = <T>(rnd: () => number, items: readonly T[]): T => items[Math.floor(rnd() * items.length)]!;
const typeOf = (err: unknown) => (err instanceof WorkflowUpdateFailedError && err.cause instanceof ApplicationFailure ? err.cause.type ?? 'untyped' : `not a refusal: ${String(err)}`);

/** Sends an update without waiting for it; its answer is checked when it comes. */
function send<T>(run: Run, name: string, call: () => Promise<T>, onAnswer?: (answer: T) => void, exclusive = false): void {
  if (exclusive) run.exclusive += 1;
  const p = call()
    .then((answer) => onAnswer?.(answer))
    .catch((err: unknown) => {
      const type = typeOf(err);
      if (!REFUSALS.has(type)) run.errors.push(`${name}: ${type}`);
    })
    .finally(() => {
      if (exclusive) run.exclusive -= 1;
      run.inFlight.delete(p);
    });
  run.inFlight.add(p);
}

function targetOf(run: Run, s: SessionSnapshot): { turn_id?: string } {
  const known = [...(s.active_turn ? [s.active_turn] : []), ...s.queue.map((q) => `t${q.turn_number}`), ...run.accepted.slice(-2)];
  return run.rnd() < 0.4 || known.length === 0 ? {} : { turn_id: pick(run.rnd, known) };
}

async function step(run: Run): Promise<void> {
  const { handle, rnd } = run;
  const s = await handle.query(sessionStateQuery);
  const action = pick(rnd, ['prompt', 'prompt', 'queue', 'steer-prompt', 'model', 'model', 'abort', 'interrupt', 'steer', 'clear', 'settings', 'compact', 'command', 'revert', 'approve'] as const);
  switch (action) {
    case 'prompt':
    case 'queue':
    case 'steer-prompt': {
      const behavior = action === 'prompt' ? 'reject' : action === 'queue' ? 'queue' : 'steer';
      return send(run, action, () => handle.executeUpdate(promptUpdate, { args: [{ text: `p${rnd()}`, behavior }] }), (a) => {
        if (!a.steered && !a.duplicate) run.accepted.push(a.turn_id);
      });
    }
    case 'model':
      return run.release();
    case 'abort':
      return send(run, action, () => handle.executeUpdate(abortUpdate, { args: [targetOf(run, s)] }), (a) => {
        if (a.aborted && a.turn_id) run.abortedTurns.push(a.turn_id);
      });
    case 'interrupt':
      return send(run, action, () => handle.executeUpdate(interruptUpdate, { args: [targetOf(run, s)] }));
    case 'steer':
      return send(run, action, () => handle.executeUpdate(steerUpdate, { args: [{ text: 'steer', ...targetOf(run, s) }] }));
    case 'clear':
      return send(run, action, () => handle.executeUpdate(clearQueueUpdate, { args: [] }));
    case 'settings':
      return send(run, action, () => handle.executeUpdate(setSettingsUpdate, { args: [{ name: `n${Math.floor(rnd() * 100)}` }] }));
    case 'compact':
      return send(run, action, () => handle.executeUpdate(compactUpdate, { args: [{}] }), undefined, true);
    case 'command':
      return send(run, action, () => handle.executeUpdate(userCommandUpdate, { args: [{ command: 'ls' }] }), undefined, true);
    case 'revert':
      return send(run, action, () => handle.executeUpdate(checkpointsUpdate, { args: [{ op: 'revert', turn_id: 't1' }] }), undefined, true);
    case 'approve': {
      const call = s.pending_approvals[0];
      if (call) send(run, action, () => handle.executeUpdate(approvalUpdate, { args: [{ tool_call_id: call.tool_call_id, decision: pick(rnd, ['approve', 'reject'] as const) }] }));
      return;
    }
  }
}

/** The phase is idle exactly when no turn runs or waits and no compaction, command or revert runs. */
async function checkPhase(run: Run, when: string): Promise<void> {
  const exclusiveBefore = run.exclusive;
  const s = await run.handle.query(sessionStateQuery);
  const nothing = s.active_turn === null && s.queue.length === 0;
  if (s.phase === 'idle' && !nothing) run.errors.push(`${when}: phase idle with turn ${s.active_turn} running and ${s.queue.length} queued`);
  // Only when no compaction, command or revert was in flight around the query (one may be under way unanswered).
  if (nothing && s.phase !== 'idle' && exclusiveBefore === 0 && run.exclusive === 0) run.errors.push(`${when}: phase ${s.phase} with nothing running or queued`);
}

async function oneRun(seed: number): Promise<void> {
  const rnd = seededRandom(seed);
  // The model's answers: nothing to call, a tool, or a tool that waits for approval.
  const steps = Array.from({ length: 200 }, (_, i) => pick(rnd, [[], [], [{ id: `c${i}`, name: 'read_file', requires_approval: false }], [{ id: `c${i}`, name: 'edit_file', requires_approval: true }]]));
  const fakes = createRecordingActivities({ steps });
  let budget = 0;
  let draining = false;
  const streamStep = fakes.activities.streamModelStep;
  fakes.activities.streamModelStep = async (input) => {
    // Streams until the test lets one step go (or an abort cancels it: heartbeats hear it).
    for (;;) {
      if (draining || budget > 0) break;
      Context.current().heartbeat();
      await Context.current().sleep(20);
    }
    if (!draining) budget -= 1;
    return streamStep(input);
  };
  const taskQueue = `tq-${randomUUID()}`;
  // Now and then (about one file run in three, on main before and after the turn-edge work) the
  // promise of runUntil never settles after a run whose checks all passed, though the worker reports
  // itself STOPPED with nothing in flight. Not understood yet; so that it cannot hang the file, a run
  // whose checks have passed waits for it at most 20 s, and says so.
  const worker = await temporal.worker(taskQueue, fakes.activities, { shutdownForceTime: '15 seconds' });
  let checked = false;
  const running = worker.runUntil(async () => {
    const handle = await temporal.env.client.workflow.start('sessionWorkflow', { taskQueue, workflowId: `session:${randomUUID()}`, args: [{ session_id: `prop-${seed}`, idle_timeout_ms: 60 * 60 * 1000, turns_publish_state: true }] });
    const run: Run = { handle, rnd, release: () => void (budget += 1), inFlight: new Set(), exclusive: 0, accepted: [], abortedTurns: [], errors: [] };
    try {
      for (let i = 0; i < STEPS; i++) {
        await step(run);
        await new Promise((r) => setTimeout(r, Math.floor(rnd() * 60)));
        await checkPhase(run, `step ${i}`);
      }
      // Drain: every model step goes, every waiting call is approved, until nothing runs.
      draining = true;
      for (let i = 0; i < 400; i++) {
        const s = await handle.query(sessionStateQuery);
        for (const call of s.pending_approvals) await handle.executeUpdate(approvalUpdate, { args: [{ tool_call_id: call.tool_call_id, decision: 'approve' }] }).catch(() => undefined);
        if (s.active_turn === null && s.queue.length === 0 && run.inFlight.size === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await Promise.all(run.inFlight);
      await checkPhase(run, 'the end');
      const finished = fakes.published.map((p) => p.event.event).filter((e) => e.type === 'turn.finished') as Array<{ turn_id: string; outcome: string }>;
      for (const turn of run.accepted) {
        const ends = finished.filter((f) => f.turn_id === turn);
        if (ends.length !== 1) run.errors.push(`turn ${turn} ended ${ends.length} times`);
      }
      for (const turn of run.abortedTurns) {
        const end = finished.find((f) => f.turn_id === turn);
        if (end?.outcome !== 'aborted') run.errors.push(`abort answered aborted for ${turn}, which ended ${end?.outcome ?? 'never'}`);
      }
      expect((await handle.query(sessionStateQuery)).phase).toBe('idle');
    } finally {
      await handle.terminate('property run done');
    }
    if (run.errors.length > 0) throw new Error(`seed ${seed}: ${run.errors.join('; ')}`);
    checked = true;
  });
  const settled = await Promise.race([
    running.then(() => true),
    (async () => {
      while (!checked) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 20_000));
      return false;
    })(),
  ]);
  if (!settled) process.stderr.write(`[property] seed ${seed}: its checks passed, but runUntil had not settled 20 s later (worker ${worker.getState()})\n`);
}

test(`${RUNS} random interleavings of every handler keep the session's invariants (seed ${BASE_SEED})`, async () => {
  for (let i = 0; i < RUNS; i++) {
    const seed = BASE_SEED + i;
    try {
      await oneRun(seed);
    } catch (err) {
      throw new Error(`property failed with seed ${seed} (run again: PROPERTY_SEED=${seed}): ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}, 400_000);
