import { execFile, execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { defaultPayloadConverter, defineSearchAttributeKey } from '@temporalio/common';
import { openSse, readUntil, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * The walking skeleton end to end, every layer real: HTTP → Temporal update-with-start → session and
 * turn workflows → scripted provider activity → JetStream → SSE, and the session store over NATS.
 */
let stack: TestStack;
let base: string;
const scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-flow-scripts-'));
/**
 * The long command of the interrupt test, told apart from every other `sleep` on the machine (other
 * test files run alongside this one, and edn-session's runs a plain `sleep 30`): 30 s and this
 * process's pid as a fraction of a second.
 */
const LONG_COMMAND = `sleep 30.${process.pid}`;

beforeAll(async () => {
  fs.writeFileSync(
    path.join(scripts, 'flow-shell.json'),
    JSON.stringify({
      steps: [
        [{ type: 'text', text: 'Running a long command.' }, { type: 'tool_call', name: 'shell_exec', args: { command: LONG_COMMAND, timeout_s: 60 } }],
        [{ type: 'text', text: 'The command finished: {{tool_result_first_line}}' }],
      ],
    }),
  );
  // Slow deltas so the stream is still running when the client drops and reconnects.
  // Sessions idle out after 3 s, so the tests also cover a workflow coming back from the store.
  stack = await startTestStack({ STRAND_SCRIPTED_DELTA_DELAY_MS: '40', STRAND_SESSION_IDLE_TIMEOUT_MS: '3000', STRAND_SCRIPTS_DIR: scripts });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  fs.rmSync(scripts, { recursive: true, force: true });
}, 60_000);

const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
const promptText = `Please echo this back\n${words}`;


const isIdle = (e: SseEvent) => e.event === 'agent.state' && JSON.parse(e.data).state === 'idle';

describe('HTTP + SSE flow', () => {
  let sessionId: string;

  test('health answers ok once Temporal, NATS and the store are reachable', async () => {
    const res = await http(base, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true });
  });

  test('creates a session', async () => {
    const res = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-project' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'active' });
    expect(typeof res.body.session_id).toBe('string');
    expect(typeof res.body.created_at).toBe('number');
    sessionId = res.body.session_id;
  });

  test('streams a turn, rejects a second prompt while busy, and resumes with Last-Event-ID without gap or duplicate', async () => {
    const live = await openSse(`${base}/api/sessions/${sessionId}/events`);
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toContain('text/event-stream');

    const accepted = await http(base, 'POST', `/api/sessions/${sessionId}/prompt`, { text: promptText });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ status: 'accepted', agent_state: 'thinking', turn_id: 't1', queued: false });

    const busy = await http(base, 'POST', `/api/sessions/${sessionId}/prompt`, { text: 'second prompt' });
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('SESSION_BUSY');

    // Read the start of the stream, then drop the connection mid-answer.
    let deltas = 0;
    const first = await readUntil(live, (e) => e.event === 'message.delta' && ++deltas === 5);
    live.close();
    const lastId = first[first.length - 1]!.id!;

    const resumed = await openSse(`${base}/api/sessions/${sessionId}/events`, { lastEventId: lastId });
    const rest = await readUntil(resumed, isIdle);
    resumed.close();

    const all = [...first, ...rest];
    const ids = all.map((e) => Number(e.id));
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);

    // The same events, read again from the beginning of the session, match exactly: no gap.
    const replay = await openSse(`${base}/api/sessions/${sessionId}/events?after=0`);
    const full = await readUntil(replay, isIdle);
    replay.close();
    expect(all.map((e) => [e.id, e.event, e.data])).toEqual(full.map((e) => [e.id, e.event, e.data]));

    const types = all.map((e) => e.event);
    expect(types[0]).toBe('agent.state');
    expect(JSON.parse(all[0]!.data)).toEqual({ type: 'agent.state', state: 'thinking' });
    expect(types.slice(-4)).toEqual(['message.done', 'usage', 'turn.finished', 'agent.state']);
    expect(JSON.parse(all[all.length - 2]!.data)).toEqual({ type: 'turn.finished', turn_id: 't1', outcome: 'done' });
    expect(types.slice(1, -4).every((t) => t === 'message.delta')).toBe(true);
    expect(types.filter((t) => t === 'message.delta').length).toBeGreaterThan(5);

    const expected = `You said: ${promptText}`;
    const streamed = all.filter((e) => e.event === 'message.delta').map((e) => JSON.parse(e.data));
    expect(streamed.map((d) => d.content).join('')).toBe(expected);
    expect(streamed.every((d) => d.role === 'assistant' && d.turn_id === 't1')).toBe(true);
    const done = JSON.parse(all[all.length - 4]!.data);
    expect(done).toMatchObject({ type: 'message.done', entry_id: 't1:s0:assistant', content: expected, stop_reason: 'end' });

    // Every frame has exactly one compact data line.
    expect(all.every((e) => !e.data.includes('\n'))).toBe(true);
  });

  test('persists the user and assistant messages', async () => {
    const res = await http(base, 'GET', `/api/sessions/${sessionId}/messages`);
    expect(res.status).toBe(200);
    const items = res.body.messages as any[];
    expect(items.map((m) => [m.entry_id, m.message.role])).toEqual([
      ['t1:user', 'user'],
      ['t1:s0:assistant', 'assistant'],
    ]);
    expect(items[0].message.content).toEqual([{ type: 'text', text: promptText }]);
    expect(items[1].message.content).toEqual([{ type: 'text', text: `You said: ${promptText}` }]);
    expect(items[1].message).toMatchObject({ provider: 'scripted', model: 'echo', stop_reason: 'end' });
  });

  test('accepts the next prompt once idle, as turn 2; a repeated request_id starts one turn', async () => {
    const body = { text: 'again', request_id: 'req-42' };
    const first = await http(base, 'POST', `/api/sessions/${sessionId}/prompt`, body);
    expect(first.status).toBe(202);
    expect(first.body.turn_id).toBe('t2');
    const repeat = await http(base, 'POST', `/api/sessions/${sessionId}/prompt`, body);
    expect(repeat.status).toBe(202);
    expect(repeat.body.turn_id).toBe('t2');
    const events = await openSse(`${base}/api/sessions/${sessionId}/events?after=0`);
    let idles = 0;
    await readUntil(events, (e) => isIdle(e) && ++idles === 2);
    events.close();
    const messages = await http(base, 'GET', `/api/sessions/${sessionId}/messages`);
    expect(messages.body.messages.map((m: any) => m.entry_id)).toEqual(['t1:user', 't1:s0:assistant', 't2:user', 't2:s0:assistant']);
  });

  test('answers contract errors', async () => {
    const unknown = await http(base, 'POST', '/api/sessions/does-not-exist/prompt', { text: 'hi' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('SESSION_NOT_FOUND');
    const empty = await http(base, 'POST', `/api/sessions/${sessionId}/prompt`, { text: '' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.code).toBe('INVALID_REQUEST');
    const notJson = await http(base, 'POST', '/api/sessions', '{nope');
    expect(notJson.status).toBe(400);
    const noEvents = await http(base, 'GET', '/api/sessions/does-not-exist/events');
    expect(noEvents.status).toBe(404);
  });

  test('a client that prompts the instant it hears idle (or turn.finished) is never told the session is busy', async () => {
    const created = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-fast' });
    const sid = created.body.session_id as string;
    const events = await openSse(`${base}/api/sessions/${sid}/events`);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const res = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: `p${i}` });
      statuses.push(res.status);
      if (res.status !== 202) continue;
      // Alternate: half the time prompt the instant this turn's turn.finished arrives, half at the idle after it.
      await readUntil(events, (e) => e.event === 'turn.finished' && JSON.parse(e.data).turn_id === res.body.turn_id);
      if (i % 2 === 0) await readUntil(events, isIdle);
    }
    events.close();
    expect(statuses.filter((s) => s !== 202)).toEqual([]);
    const view = await http(base, 'GET', `/api/sessions/${sid}`);
    expect(view.body).toMatchObject({ status: 'active', project_path: '/tmp/strand-e2e-fast', model: 'scripted/echo', thinking_level: 'off', message_count: 60 });
  }, 120_000);

  test('?queue=1 runs a prompt after the current turn instead of refusing it', async () => {
    const created = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-queue' });
    const sid = created.body.session_id as string;
    const first = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: words });
    const queued = await http(base, 'POST', `/api/sessions/${sid}/prompt?queue=1`, { text: 'queued one' });
    expect(first.status).toBe(202);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ turn_id: 't2', queued: true, queue_position: 1 });
    const events = await openSse(`${base}/api/sessions/${sid}/events?after=0`);
    const seen = await readUntil(events, (e) => e.event === 'turn.finished' && JSON.parse(e.data).turn_id === 't2');
    events.close();
    expect(seen.filter((e) => e.event === 'turn.finished').map((e) => JSON.parse(e.data).turn_id)).toEqual(['t1', 't2']);
    const messages = await http(base, 'GET', `/api/sessions/${sid}/messages`);
    expect(messages.body.messages.map((m: any) => m.entry_id)).toEqual(['t1:user', 't1:s0:assistant', 't2:user', 't2:s0:assistant']);
  }, 60_000);

  test('a session whose workflow idled out comes back with its turn counter and answered request ids', async () => {
    const created = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-dormant' });
    const sid = created.body.session_id as string;
    const first = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'one', request_id: 'dormant-1' });
    expect(first.body.turn_id).toBe('t1');
    const deadline = Date.now() + 30_000;
    let view = await http(base, 'GET', `/api/sessions/${sid}`);
    while (view.body.status !== 'dormant' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      view = await http(base, 'GET', `/api/sessions/${sid}`);
    }
    expect(view.body).toMatchObject({ status: 'dormant', agent_state: 'idle', message_count: 2 });
    // The client never saw its 202 and retries: the same turn, nothing new started.
    const retried = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'one', request_id: 'dormant-1' });
    expect(retried.status).toBe(202);
    expect(retried.body.turn_id).toBe('t1');
    const next = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'two' });
    expect(next.body.turn_id).toBe('t2');
    const events = await openSse(`${base}/api/sessions/${sid}/events?after=0`);
    await readUntil(events, (e) => e.event === 'turn.finished' && JSON.parse(e.data).turn_id === 't2');
    events.close();
    const messages = await http(base, 'GET', `/api/sessions/${sid}/messages`);
    expect(messages.body.messages.map((m: any) => m.entry_id)).toEqual(['t1:user', 't1:s0:assistant', 't2:user', 't2:s0:assistant']);
  }, 60_000);

  test('a stream opened mid-turn without a cursor starts with the events of that turn so far', async () => {
    const created = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-join' });
    const sid = created.body.session_id as string;
    const watcher = await openSse(`${base}/api/sessions/${sid}/events`);
    await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: words });
    let seen = 0;
    await readUntil(watcher, (e) => e.event === 'message.delta' && ++seen === 4);
    const late = await openSse(`${base}/api/sessions/${sid}/events`);
    const joined = await readUntil(late, (e) => e.event === 'turn.finished');
    const all = await readUntil(watcher, (e) => e.event === 'turn.finished');
    late.close();
    watcher.close();
    expect(JSON.parse(joined[0]!.data)).toEqual({ type: 'agent.state', state: 'thinking' });
    const ids = joined.map((e) => Number(e.id));
    expect(new Set(ids).size).toBe(ids.length);
    const text = (es: SseEvent[]) => es.filter((e) => e.event === 'message.delta').map((e) => JSON.parse(e.data).content).join('');
    expect(text(joined)).toBe(`You said: ${words}`);
    expect(ids[ids.length - 1]).toBe(Number(all[all.length - 1]!.id));
  }, 60_000);

  // How fast an interrupt lands is measured by `npm run bench:control`; here: that it stops the answer and in what order.
  test('interrupt stops a streaming turn and keeps exactly what was streamed', async () => {
    const created = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-abort' });
    const sid = created.body.session_id as string;
    const events = await openSse(`${base}/api/sessions/${sid}/events`);
    const long = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
    await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: long });
    let deltas = 0;
    const before = await readUntil(events, (e) => e.event === 'message.delta' && ++deltas === 5);
    const res = await http(base, 'POST', `/api/sessions/${sid}/interrupt`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'interrupted', turn_id: 't1', agent_state: 'idle' });
    const after = await readUntil(events, (e) => e.event === 'turn.finished');
    events.close();
    // The turn ends as aborted: its partial message, then turn.finished; no delta after the final message.
    expect(JSON.parse(after[after.length - 1]!.data)).toEqual({ type: 'turn.finished', turn_id: 't1', outcome: 'aborted' });
    const doneAt = after.findIndex((e) => e.event === 'message.done');
    expect(doneAt).toBeGreaterThanOrEqual(0);
    expect(after.slice(doneAt).filter((e) => e.event === 'message.delta')).toEqual([]);
    const streamed = [...before, ...after].filter((e) => e.event === 'message.delta').map((e) => JSON.parse(e.data).content).join('');
    const done = after.find((e) => e.event === 'message.done');
    expect(JSON.parse(done!.data)).toMatchObject({ stop_reason: 'aborted', content: streamed });
    const messages = await http(base, 'GET', `/api/sessions/${sid}/messages`);
    const stored = messages.body.messages[1].message;
    expect(stored).toMatchObject({ role: 'assistant', stop_reason: 'aborted', content: [{ type: 'text', text: streamed }] });
    expect(streamed.length).toBeLessThan(`You said: ${long}`.length);
    // Not running any more: a second interrupt says so, and the session takes the next prompt.
    expect((await http(base, 'POST', `/api/sessions/${sid}/interrupt`)).body.status).toBe('not_running');
    expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'next' })).status).toBe(202);
  }, 60_000);

  test('interrupt during a shell command kills its whole process group before the turn finishes', async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-abort-shell-'));
    const created = await http(base, 'POST', '/api/sessions', { project_path: workspace, model: 'scripted/flow-shell' });
    const sid = created.body.session_id as string;
    await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { always_allow: ['shell_exec'] } });
    const events = await openSse(`${base}/api/sessions/${sid}/events`);
    await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'run it' });
    await readUntil(events, (e) => e.event === 'agent.state' && JSON.parse(e.data).state === 'tool_execution');
    const sleeping = () => execSync(`pgrep -fx '${LONG_COMMAND.replace('.', '\\.')}' || true`).toString().trim();
    const deadline = Date.now() + 5_000;
    while (!sleeping() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(sleeping()).not.toBe('');
    // The turn keeps its own phase (docs/http.md, "Reads"): a read while the command runs says so, and
    // the list too once Temporal's visibility has caught up (it trails by moments).
    expect((await http(base, 'GET', `/api/sessions/${sid}`)).body).toMatchObject({ agent_state: 'tool_execution', active_turn: 't1' });
    const listed = async () => ((await http(base, 'GET', '/api/sessions')).body.sessions as Array<{ session_id: string; agent_state: string }>).find((x) => x.session_id === sid)?.agent_state;
    const listDeadline = Date.now() + 10_000;
    while ((await listed()) !== 'tool_execution' && Date.now() < listDeadline) await new Promise((r) => setTimeout(r, 100));
    expect(await listed()).toBe('tool_execution');
    // …and the running-turn list, from the turn's memo as well.
    const turnPhase = (await http(base, 'GET', '/api/turns')).body.turns.find((t: { session_id: string }) => t.session_id === sid)?.phase;
    const res = await http(base, 'POST', `/api/sessions/${sid}/interrupt`);
    const after = await readUntil(events, (e) => e.event === 'turn.finished');
    // Checked the moment turn.finished arrives: the process group is gone before the turn says it ended.
    const stillSleeping = sleeping();
    events.close();
    expect(res.body).toMatchObject({ status: 'interrupted', agent_state: 'idle' });
    expect(JSON.parse(after[after.length - 1]!.data).outcome).toBe('aborted');
    expect(stillSleeping).toBe('');
    expect(turnPhase).toBe('tool_execution');
    // The turn's StrandPhase search attribute stayed as it started: its reports wrote its memo only.
    const connection = await Connection.connect({ address: stack.urls.temporal });
    try {
      const turnHistory = (await new Client({ connection }).workflow.getHandle(`session:${sid}:turn:1`).fetchHistory()).events ?? [];
      expect(turnHistory.filter((e) => e.workflowPropertiesModifiedEventAttributes).length).toBeGreaterThan(0);
      const phaseUpserts = turnHistory.filter((e) => e.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields?.StrandPhase);
      expect(phaseUpserts).toEqual([]);
    } finally {
      await connection.close();
    }
    const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
    expect(stored.map((m: any) => m.message.role)).toEqual(['user', 'assistant', 'function_result']);
    expect(stored[2].message.content[0].text).toMatch(/stopped: the user aborted/);
    fs.rmSync(workspace, { recursive: true, force: true });
  }, 60_000);

  test('fork at an entry, resume a dormant session, delete a session mid-turn', async () => {
    const created = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-fork' });
    const sid = created.body.session_id as string;
    await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'first question' });
    const events = await openSse(`${base}/api/sessions/${sid}/events?after=0`);
    await readUntil(events, (e) => e.event === 'turn.finished');
    events.close();
    expect((await http(base, 'GET', `/api/sessions/${sid}/fork-points`)).body).toEqual({ messages: [{ entry_id: 't1:user', text: 'first question' }] });
    expect((await http(base, 'GET', `/api/sessions/${sid}/last-assistant-text`)).body).toEqual({ entry_id: 't1:s0:assistant', text: 'You said: first question' });
    const listed = await http(base, 'GET', `/api/sessions?project=${encodeURIComponent('/tmp/strand-e2e-fork')}`);
    expect(listed.body.sessions.map((s: any) => s.session_id)).toEqual([sid]);
    const fork = await http(base, 'POST', `/api/sessions/${sid}/fork`, { entry_id: 't1:user' });
    expect(fork.status).toBe(201);
    const forked = await http(base, 'GET', `/api/sessions/${fork.body.session_id}/messages`);
    expect(forked.body.messages.map((m: any) => m.message.content[0].text)).toEqual(['first question']);
    expect((await http(base, 'POST', `/api/sessions/${sid}/fork`, { entry_id: 'nope' })).status).toBe(400);

    const resumed = await http(base, 'POST', `/api/sessions/${fork.body.session_id}/resume`);
    expect(resumed.body).toEqual({ status: 'resumed', session_id: fork.body.session_id, message_count: 1 });
    expect((await http(base, 'GET', `/api/sessions/${fork.body.session_id}`)).body.status).toBe('active');

    const long = Array.from({ length: 300 }, (_, i) => `w${i}`).join(' ');
    await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: long });
    const deleted = await http(base, 'DELETE', `/api/sessions/${sid}`);
    expect(deleted.body).toEqual({ status: 'closed' });
    expect((await http(base, 'GET', `/api/sessions/${sid}`)).status).toBe(404);
    expect((await http(base, 'GET', `/api/sessions/${fork.body.session_id}`)).status).toBe(200);
  }, 60_000);

  test('the Temporal UI tells the story: search attributes, turn summaries and details, activity summaries', async () => {
    const created = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-ui' });
    const sid = created.body.session_id as string;
    await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'Explain the build\nin detail please' });
    const events = await openSse(`${base}/api/sessions/${sid}/events?after=0`);
    await readUntil(events, isIdle);
    events.close();
    const connection = await Connection.connect({ address: stack.urls.temporal });
    try {
      const client = new Client({ connection });
      const session = await client.workflow.getHandle(`session:${sid}`).describe();
      expect(session.typedSearchAttributes.get(defineSearchAttributeKey('StrandPhase', 'KEYWORD'))).toBe('idle');
      expect(session.typedSearchAttributes.get(defineSearchAttributeKey('StrandProjectPath', 'KEYWORD'))).toBe('/tmp/strand-e2e-ui');
      const turn = client.workflow.getHandle(`session:${sid}:turn:1`);
      const described = await turn.describe();
      expect(await described.staticSummary()).toBe('Explain the build');
      expect(described.typedSearchAttributes.get(defineSearchAttributeKey('StrandSessionId', 'KEYWORD'))).toBe(sid);
      const history = await turn.fetchHistory();
      const scheduled = (history.events ?? []).find((e) => e.activityTaskScheduledEventAttributes);
      const summary = scheduled?.userMetadata?.summary;
      expect(summary && defaultPayloadConverter.fromPayload(summary as any)).toBe('model step 0 · scripted/echo');
      // Visibility is eventually consistent: the list catches up within moments.
      const deadline = Date.now() + 10_000;
      let ids: string[] = [];
      while (Date.now() < deadline) {
        ids = [];
        for await (const w of client.workflow.list({ query: `StrandSessionId = '${sid}'` })) ids.push(w.workflowId);
        if (ids.length >= 2) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      expect(ids.sort()).toEqual([`session:${sid}`, `session:${sid}:turn:1`]);
    } finally {
      await connection.close();
    }
  }, 60_000);

  test('turns: a running turn is listed across sessions (HTTP and `strand turns`), shown and cancelled; the deprecated /api/jobs forms still answer, saying so', async () => {
    const created = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-jobs' });
    const sid = created.body.session_id as string;
    const events = await openSse(`${base}/api/sessions/${sid}/events`);
    // 600 words echoed at 40 ms a delta: the turn runs for 24 s, longer than two CLI runs on a busy machine.
    await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: Array.from({ length: 600 }, (_, i) => `w${i}`).join(' ') });
    await readUntil(events, (e) => e.event === 'message.delta');
    const jobId = `session:${sid}:turn:1`;
    const deadline = Date.now() + 10_000;
    let listed: any;
    while (!listed && Date.now() < deadline) {
      listed = (await http(base, 'GET', '/api/turns')).body.turns.find((j: any) => j.job_id === jobId);
      if (!listed) await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed).toMatchObject({ job_id: jobId, session_id: sid, turn_id: 't1', status: 'running', phase: 'thinking', steps: 1, cost_usd: 0 });
    // The routes' old place, for one release: the same answer, marked deprecated, pointing at the new one.
    const old = await http(base, 'GET', `/api/jobs/${encodeURIComponent(jobId)}`);
    expect([old.status, old.body.job_id, old.headers.get('deprecation'), old.headers.get('link')]).toEqual([200, jobId, 'true', `</api/turns/${encodeURIComponent(jobId)}>; rel="successor-version"`]);
    const oldList = await http(base, 'GET', '/api/jobs');
    expect([oldList.body.jobs, oldList.body.running_turns.map((t: any) => t.job_id)]).toEqual([[], [jobId]]);
    const oldUnknown = await http(base, 'GET', `/api/jobs/${encodeURIComponent('session:nope:turn:1')}`);
    expect([oldUnknown.status, oldUnknown.body.error.code, oldUnknown.headers.get('deprecation')]).toEqual([404, 'JOB_NOT_FOUND', 'true']);
    // Run without blocking this process: a blocked event loop would miss the gateway closing an idle
    // keep-alive socket (after 5 s), and the next request would be sent on it and fail.
    const cli = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string }>((resolve) =>
        execFile(process.execPath, ['--import', 'tsx', 'services/cli/main.ts', 'turns', ...args], { encoding: 'utf8', env: { ...process.env, STRAND_GATEWAY_URL: base } }, (err, stdout) =>
          resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout }),
        ),
      );
    const list = await cli('list');
    expect(list.status).toBe(0);
    expect(list.stdout).toContain(jobId);
    expect((await http(base, 'GET', `/api/turns/${encodeURIComponent(jobId)}`)).body).toMatchObject({ job_id: jobId, status: 'running' });
    const cancelled = await cli('cancel', jobId);
    expect(cancelled.stdout.trim()).toBe(`cancelled ${jobId}`);
    const after = await readUntil(events, (e) => e.event === 'turn.finished');
    expect(JSON.parse(after[after.length - 1]!.data).outcome).toBe('aborted');
    events.close();
    expect((await http(base, 'GET', `/api/turns/${encodeURIComponent(jobId)}`)).body).toMatchObject({ status: 'completed', phase: 'done' });
    const unknown = await http(base, 'GET', `/api/turns/${encodeURIComponent('session:nope:turn:1')}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('TURN_NOT_FOUND');
  }, 60_000);

  test('settings: model and thinking level checked and clamped, flags and name kept across idle-out, each change announced', async () => {
    const created = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-settings' });
    const sid = created.body.session_id as string;
    const events = await openSse(`${base}/api/sessions/${sid}/events`);
    const notConfigured = await http(base, 'POST', `/api/sessions/${sid}/model`, { provider: 'anthropic', model_id: 'claude-sonnet-4-5' });
    expect(notConfigured.status).toBe(400);
    expect(notConfigured.body.error.code).toBe('UNKNOWN_MODEL');
    expect((await http(base, 'POST', `/api/sessions/${sid}/thinking`, { level: 'bogus' })).body.error.code).toBe('INVALID_REQUEST');
    // scripted/echo does not think: any level is clamped to off.
    expect((await http(base, 'POST', `/api/sessions/${sid}/thinking`, { level: 'high' })).body).toEqual({ thinking_level: 'off', model: 'scripted/echo' });
    const cycled = await http(base, 'POST', `/api/sessions/${sid}/model`, { cycle: true });
    expect(cycled.status).toBe(200);
    expect(cycled.body.model).toMatch(/^scripted\//);
    const back = await http(base, 'POST', `/api/sessions/${sid}/model`, { provider: 'scripted', model_id: 'echo' });
    expect(back.body.model).toBe('scripted/echo');
    const patched = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { auto_retry: false, name: 'refactor', approval: { timeout_s: 30 } });
    expect(patched.body).toMatchObject({ auto_retry: false, name: 'refactor', approval: { timeout_s: 30, auto_approve_readonly: true } });
    const announced = await readUntil(events, (e) => e.event === 'agent.state');
    expect(announced.length).toBeGreaterThan(0);
    events.close();
    // The workflow idles out after 3 s; the settings come back from the store.
    const deadline = Date.now() + 30_000;
    let view = await http(base, 'GET', `/api/sessions/${sid}`);
    while (view.body.status !== 'dormant' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      view = await http(base, 'GET', `/api/sessions/${sid}`);
    }
    expect(view.body).toMatchObject({ status: 'dormant', model: 'scripted/echo', thinking_level: 'off' });
    const again = await http(base, 'PATCH', `/api/sessions/${sid}/settings`, {});
    expect(again.body).toMatchObject({ auto_retry: false, name: 'refactor', approval: { timeout_s: 30 } });
  }, 60_000);

  test('with Temporal down, session state reads as an error (503) or as unknown in the list, never as idle', async () => {
    await stack.process('temporal').kill();
    const list = await http(base, 'GET', '/api/sessions');
    expect(list.status).toBe(200);
    const listed = (list.body.sessions as Array<{ session_id: string; status: string; agent_state: string; status_reason?: string }>).find((s) => s.session_id === sessionId);
    expect(listed).toMatchObject({ status: 'unknown', agent_state: 'unknown', status_reason: expect.stringMatching(/Temporal/) });
    const one = await http(base, 'GET', `/api/sessions/${sessionId}`);
    expect(one.status).toBe(503);
    expect(one.body.error.code).toBe('UNAVAILABLE');
    expect(one.headers.get('retry-after')).toBe('2');
  }, 60_000);
});
