import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { sessionWorkflowId, turnWorkflowId } from '../contracts/workflow-ids';
import { startTestStack } from '../test/harness/stack-fixture';
import { BusyLoops } from './load/busy-loops';
import { markdown, summarize, targets } from './load/summary';
import { runWorkload } from './load/workload';

/**
 * Reads, renames and chats on a busy machine (docs/http.md "Reads", "Commands under load"): a local
 * stack with two workers and SESSIONS sessions; READERS clients each reading a session then a page
 * of 50 in a loop, one renamer (PATCH settings every 200 ms), CHATTERS clients chatting, for
 * DURATION_S seconds. Twice: quiet (the baseline), then with busy loops on 2 × the cores for the whole
 * phase and one worker killed with SIGKILL half-way (started again a second later, as `npm start`'s
 * supervisor does). Prints JSON; writes bench/results/load.json and load.md; exits 1 when a target of
 * the busy phase does not hold. Run: `npm run bench:load`.
 */
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 30);
const READERS = Number(process.env.BENCH_READERS ?? 4);
const CHATTERS = Number(process.env.BENCH_CHATTERS ?? 3);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 60);
const BUSY_LOOPS = Number(process.env.BENCH_BUSY_LOOPS ?? 2 * os.cpus().length);
const progress = (what: string) => console.error(`[bench:load] ${what}`);

async function main(): Promise<void> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-load-'));
  progress('starting the stack (2 workers)');
  const stack = await startTestStack({ STRAND_SCRIPTED_DELTA_DELAY_MS: '20' }, { instances: { worker: 2 } });
  const busy = new BusyLoops();
  try {
    const base = stack.urls.gateway;
    const sessions: string[] = [];
    for (let i = 0; i < SESSIONS; i++) {
      const res = await fetch(`${base}/api/sessions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ project_path: workspace, model: 'scripted/echo', title: `load ${i}` }) });
      sessions.push(((await res.json()) as { session_id: string }).session_id);
    }
    const load = { base, sessions, readers: READERS, chatters: CHATTERS, renameEveryMs: 200, durationMs: DURATION_S * 1000 };
    progress(`quiet phase: ${DURATION_S} s`);
    const quiet = summarize(await runWorkload(load));
    progress(`busy phase: ${DURATION_S} s with ${BUSY_LOOPS} busy loops, a worker killed half-way`);
    busy.start(BUSY_LOOPS);
    const killed = 'worker#2' as const;
    const loaded = summarize(
      await runWorkload({
        ...load,
        midway: async () => {
          progress(`kill -9 ${killed}`);
          await stack.process(killed).kill();
          await new Promise((r) => setTimeout(r, 1_000));
          await stack.restart(killed);
          progress(`${killed} started again`);
        },
      }),
    );
    busy.stop();
    for (const u of loaded.unfinished) Object.assign(u, { temporal: await describeTurn(stack.urls.temporal, u.session_id, u.turn_id) });
    // The gateway's own account of any 5xx (its error lines), kept with the figures.
    if (loaded.failures.length > 0) Object.assign(loaded, { gateway_errors: stack.output.filter((l) => /unhandled error|answered 503|"level":(50|40)/i.test(l)).slice(-30) });
    const held = targets(loaded);
    const meta = { sessions: SESSIONS, readers: READERS, chatters: CHATTERS, duration_s: DURATION_S, busy_loops: BUSY_LOOPS, cores: os.cpus().length, node: process.version, at: new Date().toISOString() };
    const result = { meta, quiet, busy: loaded, targets: held };
    console.log(JSON.stringify(result, null, 2));
    const out = path.join(__dirname, 'results');
    fs.writeFileSync(path.join(out, 'load.json'), `${JSON.stringify(result, null, 2)}\n`);
    fs.writeFileSync(path.join(out, 'load.md'), markdown({ quiet, busy: loaded }, held, meta));
    if (!Object.values(held).every((t) => t.held)) process.exitCode = 1;
  } finally {
    busy.stop();
    await stack.teardown();
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

/** What Temporal says of an unfinished turn and its session: status, pending activities, the last events' types. */
async function describeTurn(address: string, sessionId: string, turnId: string): Promise<unknown> {
  const connection = await Connection.connect({ address });
  try {
    const client = new Client({ connection });
    const about = async (id: string) => {
      const handle = client.workflow.getHandle(id);
      const d = await handle.describe();
      const raw = d.raw as { pendingActivities?: Array<{ activityType?: { name?: string }; state?: unknown; attempt?: number; lastFailure?: { message?: string } }> };
      const history = await handle.fetchHistory();
      const events = (history.events ?? []).map((e) => String(e.eventType));
      // A workflow task that failed says why (a replay's nondeterminism, an exception in a handler).
      const taskFailures = (history.events ?? []).flatMap((e) => (e.workflowTaskFailedEventAttributes ? [{ event_id: String(e.eventId), cause: e.workflowTaskFailedEventAttributes.cause, message: e.workflowTaskFailedEventAttributes.failure?.message, stack: e.workflowTaskFailedEventAttributes.failure?.stackTrace?.split('\n').slice(0, 8).join('\n') }] : []));
      // The whole history, to replay where it failed (Worker.runReplayHistory).
      const saved = path.join(os.tmpdir(), `strand-bench-load-${id.replace(/[^\w-]+/g, '_')}.history.json`);
      fs.writeFileSync(saved, JSON.stringify(temporal.api.history.v1.History.fromObject(history).toJSON()));
      return { status: d.status.name, pending: (raw.pendingActivities ?? []).map((a) => ({ type: a.activityType?.name, state: a.state, attempt: a.attempt, failure: a.lastFailure?.message })), last_events: events.slice(-12), task_failures: taskFailures, history_file: saved };
    };
    const turnNumber = Number(turnId.replace(/^t/, ''));
    return { session: await about(sessionWorkflowId(sessionId)).catch((e: Error) => e.message), turn: await about(turnWorkflowId(sessionId, turnNumber)).catch((e: Error) => e.message) };
  } finally {
    await connection.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
