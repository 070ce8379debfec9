import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { turnWorkflowId } from '../contracts/workflow-ids';
import { http, startTestStack } from '../test/harness/stack-fixture';
import { intFrom } from './env-int';

/**
 * Do live workers' tool calls miss their heartbeat timeout on a busy machine? (bench/README.md, the
 * jobs bench.) A real stack with two workers; BENCH_TURNS sessions (40) on one git workspace of
 * BENCH_WORKSPACE_FILES files (4000), each prompted at once with a scripted model whose one tool call
 * is a `shell_exec` that writes a file (so the checkpoint's diff after it has work). Run it beside
 * busy loops on every core (two per core, at normal priority), as a build beside the agent would be:
 *   for i in 1 2 3 4; do timeout 900 sh -c 'while :; do :; done' & done; npx tsx bench/tool-heartbeats.bench.ts
 * Prints, from the turns' histories: runTool attempts after the first and why the one before ended
 * (HEARTBEAT timeouts), calls recorded "interrupted", and the longest time a running activity went
 * past its start or last recorded heartbeat, sampled from describeWorkflowExecution.
 */
const TURNS = intFrom(process.env, 'BENCH_TURNS', 40, 1);
const FILES = intFrom(process.env, 'BENCH_WORKSPACE_FILES', 4000, 0);
const HEARTBEAT = 4; // temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_HEARTBEAT
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const millis = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => (t ? Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0);

function makeWorkspace(dir: string): void {
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(dir, 'src', `m${i % 50}`);
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
  }
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.invalid', ...args], { cwd: dir });
  git('init', '--quiet');
  git('add', '-A');
  git('commit', '--quiet', '--allow-empty', '-m', 'first');
}

/** The runTool attempts after the first in one turn's history, with the timeout type of the attempt before. */
function retriedTools(events: temporal.api.history.v1.IHistoryEvent[]): Array<{ attempt: number; timeoutType: number | null }> {
  const types = new Map<string, string>();
  const retried: Array<{ attempt: number; timeoutType: number | null }> = [];
  for (const ev of events) {
    const scheduled = ev.activityTaskScheduledEventAttributes;
    if (scheduled) types.set(String(ev.eventId), scheduled.activityType?.name ?? '');
    const started = ev.activityTaskStartedEventAttributes;
    if (started && types.get(String(started.scheduledEventId)) === 'runTool' && (started.attempt ?? 1) > 1) {
      retried.push({ attempt: started.attempt ?? 1, timeoutType: started.lastFailure?.timeoutFailureInfo?.timeoutType ?? null });
    }
  }
  return retried;
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-heartbeats-'));
  const scripts = path.join(tmp, 'scripts');
  const workspace = path.join(tmp, 'workspace');
  fs.mkdirSync(scripts);
  fs.mkdirSync(workspace);
  makeWorkspace(workspace);
  const command = 'sleep 1; echo "$$" > "out-$$.txt"; echo done';
  fs.writeFileSync(path.join(scripts, 'shell.json'), JSON.stringify({ steps: [[{ type: 'tool_call', name: 'shell_exec', args: { command, timeout_s: 300 } }], [{ type: 'text', text: 'Result: {{tool_result_first_line}}' }]] }));
  const stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts, STRAND_SCRIPTED_DELTA_DELAY_MS: '20' }, { instances: { worker: 2 } });
  const connection = await Connection.connect({ address: stack.urls.temporal });
  const client = new Client({ connection });
  const base = stack.urls.gateway;
  const loads = [load()];
  try {
    const sids: string[] = [];
    for (let i = 0; i < TURNS; i++) {
      const sid = (await http(base, 'POST', '/api/sessions', { project_path: workspace, model: 'scripted/shell' })).body.session_id as string;
      await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { always_allow: ['shell_exec'] } });
      sids.push(sid);
    }
    await Promise.all(sids.map((sid) => http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'run it' })));
    // Temporal's side: how long a running activity has gone past its start or last recorded heartbeat.
    const longest: Record<string, number> = {};
    let sampling = true;
    const sampler = (async () => {
      for (let i = 0; sampling; i++) {
        const described = await client.workflowService
          .describeWorkflowExecution({ namespace: 'default', execution: { workflowId: turnWorkflowId(sids[i % sids.length]!, 1) } })
          .catch(() => undefined);
        for (const a of described?.pendingActivities ?? []) {
          if (a.state !== 2) continue; // STARTED
          const since = millis(a.lastHeartbeatTime) > millis(a.lastStartedTime) ? 'last heartbeat' : 'start';
          const key = `${a.activityType?.name ?? '?'} since ${since}`;
          longest[key] = Math.max(longest[key] ?? 0, Date.now() - Math.max(millis(a.lastHeartbeatTime), millis(a.lastStartedTime)));
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const turns = await Promise.all(
      sids.map(async (sid) => {
        const handle = client.workflow.getHandle(turnWorkflowId(sid, 1));
        const outcome = await handle.result().then(
          () => 'completed',
          (err: unknown) => `failed: ${(err as Error).message}`,
        );
        const retried = retriedTools((await handle.fetchHistory()).events ?? []);
        const messages = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages ?? [];
        return { outcome, retried, interrupted: JSON.stringify(messages).includes('was interrupted') };
      }),
    );
    sampling = false;
    await sampler;
    loads.push(load());
    const retried = turns.flatMap((t) => t.retried);
    const result = {
      turns: TURNS,
      workspace_files: FILES,
      load: loads,
      turns_not_completed: turns.filter((t) => t.outcome !== 'completed').length,
      runtool_retried_attempts: retried.length,
      runtool_retried_after_heartbeat_timeout: retried.filter((r) => r.timeoutType === HEARTBEAT).length,
      calls_interrupted: turns.filter((t) => t.interrupted).length,
      longest_ms_past_start_or_heartbeat: longest,
    };
    console.log(JSON.stringify(result));
  } finally {
    await connection.close();
    await stack.teardown();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
