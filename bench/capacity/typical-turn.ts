import fs from 'node:fs';
import path from 'node:path';
import { openSse, type SseConnection } from '../../test/harness/sse-client';

/**
 * The turn whose cost the capacity bench measures: a prompt, a step that says one line and calls
 * read_file (auto-approved: read-only), then a step that streams a ~100-word answer. Written as a
 * scripted-provider script so every run streams the same deltas.
 */
const TYPICAL_TURN_MODEL = 'scripted/capacity-turn';

const ANSWER = [
  'The README describes a durable runtime for a coding agent. Each prompt runs as a workflow that calls',
  'the model and the tools as activities, so a crash of any process leaves the turn to carry on elsewhere.',
  'Conversations live in a branching session store, and every event travels over a stream from which any',
  'number of gateways read. Clients connect over server-sent events, WebSocket or EDN lines and resume',
  'from their last sequence number after a reconnect. Its first line reads: {{tool_result_first_line}}.',
  'Nothing else in the file needs a change for what you asked.',
].join(' ');

/** Writes the script into `scriptsDir` and a README for the tool to read into `workspace`. */
export function writeTypicalTurn(scriptsDir: string, workspace: string): { answerWords: number } {
  const script = {
    description: 'capacity bench: one tool call, then a ~100-word answer',
    steps: [
      [
        { type: 'text', text: 'Let me read the README first.' },
        { type: 'tool_call', name: 'read_file', args: { path: 'README.md' } },
      ],
      [{ type: 'text', text: ANSWER }],
    ],
  };
  fs.writeFileSync(path.join(scriptsDir, 'capacity-turn.json'), JSON.stringify(script, null, 2));
  fs.writeFileSync(path.join(workspace, 'README.md'), `# bench project\n${'A line of the project readme.\n'.repeat(40)}`);
  return { answerWords: ANSWER.split(/\s+/).length };
}

async function post(base: string, route: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`POST ${route} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

async function until(conn: SseConnection, match: (event: string, data: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  for (;;) {
    const e = await conn.next(60_000);
    if (!e) throw new Error('event stream ended');
    const data = JSON.parse(e.data) as Record<string, unknown>;
    if (match(e.event, data)) return data;
  }
}

/** A session on the gateway with one SSE client watching it, as a person at an editor would. */
export interface WatchedSession {
  sessionId: string;
  events: SseConnection;
}

export async function openWatchedSession(base: string, workspace: string): Promise<WatchedSession> {
  const { session_id } = await post(base, '/api/sessions', { project_path: workspace, model: TYPICAL_TURN_MODEL });
  const sessionId = String(session_id);
  return { sessionId, events: await openSse(`${base}/api/sessions/${sessionId}/events`) };
}

/** Runs `turns` turns one after the other on the session; a turn that does not finish `done` is an error. */
export async function runTurns(base: string, s: WatchedSession, turns: number, label: string): Promise<void> {
  for (let i = 0; i < turns; i++) {
    await post(base, `/api/sessions/${s.sessionId}/prompt`, { text: `${label} turn ${i}: what does the README say?` });
    const finished = await until(s.events, (ev) => ev === 'turn.finished');
    if (finished.outcome !== 'done') throw new Error(`turn ${i} of ${s.sessionId} finished ${String(finished.outcome)}`);
    await until(s.events, (ev, d) => ev === 'agent.state' && d.state === 'idle');
  }
}

/** Starts `count` idle session workflows (created, then resumed), `batch` at a time. */
export async function startIdleSessions(base: string, workspace: string, count: number, batch = 50): Promise<void> {
  for (let i = 0; i < count; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, count - i) }, async () => {
        const { session_id } = await post(base, '/api/sessions', { project_path: workspace, model: TYPICAL_TURN_MODEL });
        await post(base, `/api/sessions/${String(session_id)}/resume`, {});
      }),
    );
  }
}
