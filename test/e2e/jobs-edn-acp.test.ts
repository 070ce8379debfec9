import type * as acp from '@agentclientprotocol/sdk';
import type { EdnMap } from '../../services/gateway/edn/edn-value';
import { AcpTestAgent } from '../harness/acp-client';
import { chunkText } from '../harness/acp-fixture';
import { jobHasSession, startJobE2eStack, type JobE2eStack } from '../harness/job-e2e-stack';
import type { TestStack } from '../harness/stack-fixture';
import { dataOf, EdnTestClient, name, topicOf, type Frame } from './edn-session-client';
import { EMACS_CLIENT_INFO, EMACS_TOPICS } from './edn-session-fixture';

/**
 * Unattended jobs over EDN and ACP (docs/edn.md "Jobs", docs/acp.md "Jobs"), on a real stack with
 * tokens: a job started over HTTP is listed on each protocol, watched (its session `job-<id>`
 * focused over EDN, loaded over ACP) with its events streaming to its end, and its report read; an
 * escalated call is answered and a job cancelled over EDN; another principal sees none of it, as over
 * HTTP. And EDN's params are strict on the real wire.
 */
const ALICE = 'tok-alice';
const BOB = 'tok-bob';
const TOKENS = `${ALICE}:alice,${BOB}:bob`;
const WORDS = Array.from({ length: 40 }, (_, i) => `w${i} `);
let js: JobE2eStack;
let stack: TestStack;
const edn: EdnTestClient[] = [];
const agents: AcpTestAgent[] = [];

beforeAll(async () => {
  js = await startJobE2eStack('strand-jobs-edn-acp', { STRAND_TOKENS: TOKENS, STRAND_SCRIPTED_DELTA_DELAY_MS: '5' });
  stack = js.stack;
  // 150 ms a word: a watcher joins while the job's turn streams.
  js.script('job-watch', [
    [...WORDS.flatMap((w): unknown[] => [{ type: 'text', text: [w] }, { type: 'delay', ms: 150 }]), { type: 'tool_call', name: 'write_file', args: { path: 'watched.txt', content: 'seen\n' } }],
    [{ type: 'text', text: 'Wrote watched.txt. the end.' }],
  ]);
  js.script('job-slow', [[{ type: 'text', text: 'Thinking hard.' }, { type: 'stall' }]]);
  js.script('job-escalate', [[{ type: 'tool_call', name: 'shell_exec', args: { command: 'echo yes > approved.txt' } }], [{ type: 'text', text: 'Approved and done.' }]]);
}, 180_000);

afterEach(() => {
  for (const c of edn) expect(c.violations).toEqual([]);
});

afterAll(async () => {
  for (const c of edn) c.close();
  await Promise.all(agents.map((a) => a.kill()));
  await js?.teardown();
}, 60_000);

const spec: JobE2eStack['spec'] = (model, extra) => js.spec(model, extra);

const startJob = (model: string, extra: Record<string, unknown> = {}): Promise<string> => js.startJob(ALICE, spec(model, extra));

/** An EDN client over TCP as psi's Emacs client connects: handshake with the token, its topics. */
async function ednAs(token: string): Promise<EdnTestClient> {
  const c = await EdnTestClient.tcp(stack.urls.edn);
  edn.push(c);
  await c.request('handshake', { 'client-info': { ...EMACS_CLIENT_INFO, 'auth-token': token } }, 60_000);
  await c.request('subscribe', { topics: EMACS_TOPICS });
  return c;
}

/** Polls `get_job` over EDN until `done` holds. */
async function jobUntil(c: EdnTestClient, jobId: string, done: (job: EdnMap) => boolean, what: string): Promise<EdnMap> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const job = (await c.request('get_job', { 'job-id': jobId })).job as EdnMap;
    if (done(job)) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} never got to ${what}: ${JSON.stringify(job)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const phaseOf = (job: EdnMap) => ((job.progress as EdnMap | null)?.phase as string | undefined) ?? null;
/** The job's session exists: its workspace is made (any phase after preparing), or the job has ended. */
const hasSession = (job: EdnMap) => job.status !== 'running' || (phaseOf(job) !== null && phaseOf(job) !== 'preparing');
const errorCode = (f: Frame) => f['error-code'];

test('EDN: a job started over HTTP is listed, watched to its end (its session focused, its events streamed), its report read; another principal sees nothing', async () => {
  const jobId = await startJob('job-watch');
  const alice = await ednAs(ALICE);
  // Its session exists once the workspace is made (phase working): watching before that is request/not-found.
  await jobUntil(alice, jobId, hasSession, 'its session');

  const listed = (await alice.request('list_jobs', {})).jobs as EdnMap[];
  expect(listed.find((j) => j['job-id'] === jobId)).toMatchObject({ 'job-id': jobId, status: 'running', 'session-id': `job-${jobId}`, 'project-path': js.repo, 'escalations-waiting': 0 });
  expect(typeof listed[0]!['started-at']).toBe('number');
  // The same list as an EQL attribute, in the style of :psi.session/list.
  const eql = (await alice.request('query_eql', { query: '[{:strand.job/list [:job-id :status :session-id]}]' })).result as EdnMap;
  expect((eql['strand.job/list'] as EdnMap[]).find((j) => j['job-id'] === jobId)).toEqual({ 'job-id': jobId, status: 'running', 'session-id': `job-${jobId}` });

  const from = alice.frames.length;
  const watch = alice.send('watch_job', { 'job-id': jobId });
  const answer = await alice.answer(watch);
  expect(dataOf(answer)).toMatchObject({ 'session-id': `job-${jobId}`, job: { 'job-id': jobId, status: 'running' } });
  // The focus moved as switch_session moves it: resumed and rehydrated with the job's session.
  expect(dataOf(await alice.waitFor((f) => topicOf(f) === 'session/rehydrated', 30_000, from))['session-id']).toBe(`job-${jobId}`);
  // Its turn's events stream live, to its end.
  const last = await alice.waitFor((f) => topicOf(f) === 'assistant/message' && String(dataOf(f).text ?? '').includes('the end.'), 60_000, from);
  expect(dataOf(last)['session-id']).toBe(`job-${jobId}`);
  const deltas = alice.events('assistant/delta', from).filter((f) => alice.index(f) < alice.index(last));
  expect(deltas.length).toBeGreaterThan(0);
  expect(deltas.every((f) => dataOf(f)['session-id'] === `job-${jobId}`)).toBe(true);
  expect(alice.events('tool/result', from).some((f) => dataOf(f)['tool-name'] === 'write_file')).toBe(true);

  const ended = await jobUntil(alice, jobId, (j) => j.status !== 'running', 'its end');
  expect(ended.status).toBe('succeeded');
  const report = (await alice.request('get_job_report', { 'job-id': jobId })).report as EdnMap;
  expect(report).toMatchObject({ 'job-id': jobId, status: 'succeeded', 'session-id': `job-${jobId}`, deliverable: { branch: `strand/job-${jobId}`, verified: true } });
  expect(String((await alice.request('get_job_report', { 'job-id': jobId, format: 'markdown' })).markdown)).toMatch(new RegExp(`^# Job ${jobId}: succeeded`));

  // The command table's /jobs and /job: the list, and the job shown with its session focused.
  const jobs = alice.send('command', { text: '/jobs' });
  await alice.answer(jobs);
  const listedText = String(dataOf(await alice.waitFor((f) => topicOf(f) === 'command-result' && f.id === jobs)).message);
  expect(listedText).toContain(`- ${jobId} succeeded: run job-watch`);
  const one = alice.send('command', { text: `/job ${jobId}` });
  await alice.answer(one);
  expect(String(dataOf(await alice.waitFor((f) => topicOf(f) === 'command-result' && f.id === one)).message)).toMatch(new RegExp(`^job ${jobId}: succeeded[\\s\\S]*report: succeeded`));

  // Bob: the same answers as for a job that does not exist, as over HTTP.
  const bob = await ednAs(BOB);
  expect(((await bob.request('list_jobs', {})).jobs as EdnMap[]).map((j) => j['job-id'])).not.toContain(jobId);
  expect((((await bob.request('query_eql', { query: '[{:strand.job/list [:job-id]}]' })).result as EdnMap)['strand.job/list'] as EdnMap[]).map((j) => j['job-id'])).not.toContain(jobId);
  for (const op of ['get_job', 'get_job_report', 'watch_job', 'cancel_job']) {
    const refused = await bob.failure(op, { 'job-id': jobId });
    expect([op, errorCode(refused), String(refused['error-message'])]).toEqual([op, 'request/not-found', `no job ${jobId}`]);
  }
  expect(errorCode(await bob.failure('switch_session', { 'session-id': `job-${jobId}` }))).toBe('request/not-found');
  expect((await js.as(BOB, 'GET', `/api/jobs/${jobId}`)).status).toBe(404);
}, 180_000);

test('EDN: an escalated call waits (listed as waiting), is answered over EDN and runs, the report names who; a job cancelled over EDN reports cancelled', async () => {
  const alice = await ednAs(ALICE);
  const escalated = await startJob('job-escalate', { policy: { tools: { shell_exec: 'escalate' } } });
  const slow = await startJob('job-slow');
  const waiting = await jobUntil(alice, escalated, (j) => ((j.progress as EdnMap | null)?.escalations as EdnMap[] | undefined)?.length === 1, 'an escalation');
  const call = ((waiting.progress as EdnMap).escalations as EdnMap[])[0]!;
  expect(call).toMatchObject({ tool: 'shell_exec', 'rule-source': 'tools.shell_exec' });
  expect(((await alice.request('list_jobs', { status: 'running' })).jobs as EdnMap[]).find((j) => j['job-id'] === escalated)).toMatchObject({ 'escalations-waiting': 1 });

  const bob = await ednAs(BOB);
  expect(errorCode(await bob.failure('answer_job_escalation', { 'job-id': escalated, 'tool-call-id': call['tool-call-id']!, decision: 'allow' }))).toBe('request/not-found');
  expect(await alice.request('answer_job_escalation', { 'job-id': escalated, 'tool-call-id': call['tool-call-id']!, decision: 'allow', reason: 'looks fine' })).toEqual({ 'job-id': escalated, 'tool-call-id': call['tool-call-id'], decision: 'allow', by: 'alice' });
  const done = await jobUntil(alice, escalated, (j) => j.status !== 'running', 'its end');
  expect(done.status).toBe('succeeded');
  expect(((done.report as EdnMap)['tool-calls'] as EdnMap[]).find((t) => t['tool-call-id'] === call['tool-call-id'])).toMatchObject({ outcome: 'ran', 'decided-by': 'person', 'answered-by': 'alice' });

  await jobUntil(alice, slow, hasSession, 'its session');
  expect(await alice.request('cancel_job', { 'job-id': slow })).toEqual({ 'job-id': slow, status: 'cancel_requested' });
  expect((await jobUntil(alice, slow, (j) => j.status !== 'running', 'its end')).status).toBe('cancelled');
  expect(await alice.request('cancel_job', { 'job-id': slow })).toEqual({ 'job-id': slow, status: 'not_running' });
}, 180_000);

test('EDN on the wire: an unknown key in an op\'s params or the handshake\'s :client-info is request/invalid-params naming it; nothing runs', async () => {
  const alice = await ednAs(ALICE);
  const before = (await alice.request('get_state', {})).state as EdnMap;
  const refused = await alice.failure('prompt', { mesage: 'hi' });
  expect([errorCode(refused), refused['error-message'], name(refused.op)]).toEqual(['request/invalid-params', 'invalid params for prompt: :mesage: unrecognized key', 'prompt']);
  expect(((await alice.request('get_state', {})).state as EdnMap)['message-count']).toBe(before['message-count']);
  expect((await alice.failure('list_jobs', { status: 'running', colour: 'red' }))['error-message']).toBe('invalid params for list_jobs: :colour: unrecognized key');

  const fresh = await EdnTestClient.tcp(stack.urls.edn);
  edn.push(fresh);
  const hs = await fresh.failure('handshake', { 'client-info': { ...EMACS_CLIENT_INFO, 'auth-token': ALICE, colour: 'red' } });
  expect([errorCode(hs), hs['error-message']]).toEqual(['request/invalid-params', 'invalid params for handshake: :client-info :colour: unrecognized key']);
}, 60_000);

test('ACP: /jobs lists the caller\'s jobs, /job shows one, session/load of job-<id> replays and follows it to its end; another principal sees nothing', async () => {
  const agentAs = async (token: string) => {
    const a = new AcpTestAgent(AcpTestAgent.env(stack.urls, { STRAND_TOKENS: TOKENS, STRAND_TOKEN: token, STRAND_DEFAULT_MODEL: 'scripted/echo' }));
    agents.push(a);
    await a.initialize();
    return a;
  };
  const alice = await agentAs(ALICE);
  const sid = (await alice.agent.request('session/new', { cwd: js.repo, mcpServers: [] })).sessionId;
  // Started once the agent is up (a process that takes seconds to start on a busy machine), so it is watched while it runs.
  const jobId = await startJob('job-watch');
  const say = async (a: AcpTestAgent, session: string, text: string) => {
    const before = chunkText(a.updates(session), 'agent_message_chunk').length;
    expect(await a.agent.request('session/prompt', { sessionId: session, prompt: [{ type: 'text', text }] })).toEqual({ stopReason: 'end_turn' });
    return chunkText(a.updates(session), 'agent_message_chunk').slice(before);
  };
  expect(await say(alice, sid, '/jobs')).toMatch(new RegExp(`^Jobs \\(\\d+\\):[\\s\\S]*- ${jobId} running: run job-watch[\\s\\S]*session/load`));

  // Loading the job's session while it runs: its conversation so far, then its events, to the turn's end.
  await js.jobUntil(ALICE, jobId, jobHasSession);
  const jobSession = `job-${jobId}`;
  const loaded = (await alice.agent.request('session/load', { sessionId: jobSession, cwd: js.repo, mcpServers: [] })) as acp.LoadSessionResponse;
  expect(loaded.modes).toBeDefined();
  await alice.until(() => chunkText(alice.updates(jobSession), 'agent_message_chunk').includes('the end.'), 60_000, "the job's last answer");
  // Followed live: the step under way from its start (the job says where its turn began its stream:
  // docs/acp.md, "Jobs"), each word once, then its last answer.
  const text = chunkText(alice.updates(jobSession), 'agent_message_chunk');
  expect(text.endsWith(`${WORDS.join('')}Wrote watched.txt. the end.`)).toBe(true);
  expect(text.split('w0 ')).toHaveLength(2);
  expect(alice.updates(jobSession).some((u) => u.sessionUpdate === 'tool_call' && JSON.stringify(u).includes('watched.txt'))).toBe(true);

  await js.jobUntil(ALICE, jobId, (v) => v.status !== 'running');
  expect(await say(alice, sid, `/job ${jobId}`)).toMatch(new RegExp(`^job ${jobId}: succeeded[\\s\\S]*branch strand/job-${jobId}: 1 commit\\(s\\)[\\s\\S]*Watch it by loading session job-${jobId}\\.$`));

  const bob = await agentAs(BOB);
  const bobSession = (await bob.agent.request('session/new', { cwd: js.repo, mcpServers: [] })).sessionId;
  expect(await say(bob, bobSession, '/jobs')).not.toContain(jobId);
  expect(await say(bob, bobSession, `/job ${jobId}`)).toBe(`/job: no job ${jobId}`);
  await expect(bob.agent.request('session/load', { sessionId: jobSession, cwd: js.repo, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
}, 240_000);
