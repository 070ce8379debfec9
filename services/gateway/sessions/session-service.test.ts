import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import { chatRequestSchema } from '../../../contracts/ws-rpc';
import type { PromptAccepted, PromptCommand } from '../../../contracts/session-workflow';
import type { AgentEventReader } from '../events/agent-event-reader';
import type { SessionCommands } from '../temporal/session-commands';
import { scopedSessionId } from './client-session-ids';
import { SessionService } from './session-service';

/**
 * Client-named session ids against an in-memory store with the store's own get/ensure/create rules:
 * with a principal a name is scoped to it, so another principal's id answers exactly like an unknown
 * one; without one the name is the id, as before. And the project directory check on creation.
 */
function memoryStore() {
  const sessions = new Map<string, SessionMeta>();
  const calls: string[] = [];
  let n = 0;
  const make = (session_id: string, r: { title?: string; metadata?: Record<string, unknown> }): SessionMeta => ({
    session_id,
    title: r.title ?? '',
    description: '',
    status: 'idle',
    ...(r.metadata ? { metadata: r.metadata } : {}),
    created_at: 1,
    updated_at: 1,
    message_count: 0,
  });
  const store = {
    get: async ({ session_id }: { session_id: string }) => (calls.push(`get ${session_id}`), sessions.has(session_id) ? { meta: sessions.get(session_id)! } : null),
    ensure: async (r: { session_id: string; title?: string; metadata?: Record<string, unknown> }) => {
      calls.push(`ensure ${r.session_id}`);
      const had = sessions.get(r.session_id);
      if (had) return { session_id: r.session_id, meta: had, created: false };
      sessions.set(r.session_id, make(r.session_id, r));
      return { session_id: r.session_id, meta: sessions.get(r.session_id)!, created: true };
    },
    setMeta: async (r: { session_id: string; title?: string; metadata_patch?: Record<string, unknown> }) => {
      calls.push(`setMeta ${r.session_id}`);
      const had = sessions.get(r.session_id)!;
      const metadata = Object.fromEntries(Object.entries({ ...had.metadata, ...r.metadata_patch }).filter(([, v]) => v !== null));
      sessions.set(r.session_id, { ...had, ...(r.title !== undefined ? { title: r.title } : {}), metadata });
      return { meta: sessions.get(r.session_id)! };
    },
    create: async (r: { title?: string; metadata?: Record<string, unknown> }) => {
      const id = `gen${++n}`;
      calls.push(`create ${id}`);
      sessions.set(id, make(id, r));
      return { session_id: id, meta: sessions.get(id)! };
    },
  };
  return { store: store as unknown as StoreClient, sessions, calls };
}

/** Session workflows started (or the failure Temporal answers with), as SessionCommands.ensureRunning sees them. */
function startedWorkflows(failWith?: Error) {
  const started: Array<{ session_id: string; project_path: string; model: string; owner?: string }> = [];
  const commands = {
    ensureRunning: async (info: (typeof started)[number]) => {
      if (failWith) throw failWith;
      started.push(info);
    },
  };
  return { started, commands: commands as unknown as SessionCommands };
}

function service(checkProject: (p: string) => Promise<void> = async () => undefined, temporal = startedWorkflows()) {
  const mem = memoryStore();
  const sessions = new SessionService({
    store: mem.store,
    commands: temporal.commands,
    reader: {} as AgentEventReader,
    defaultModel: 'scripted/echo',
    configuredProviders: ['openai'],
    checkProject,
  });
  return { ...mem, started: temporal.started, service: sessions };
}

/** What a principal gets when it names `name` and makes its session ready (as a WebSocket chat does). */
async function nameAndEnsure(s: SessionService, name: string, principal: string | undefined, project = '/p') {
  const id = await s.clientSessionId(name, principal);
  const got = await s.ensure(id, { project_path: project, ...(principal ? { owner: principal } : {}) });
  return { id, created: got.created, owner: got.session.meta.metadata?.owner, project: got.session.meta.metadata?.project_path };
}

describe('client-named session ids', () => {
  test("another principal's id answers exactly like an unknown one: a session of the caller's own", async () => {
    const { service: s, sessions } = service();
    const alice = await nameAndEnsure(s, 'sess_shared', 'alice', '/alice');
    expect(alice).toMatchObject({ created: true, owner: 'alice' });
    // Bob names Alice's id, and an id nobody has: the same answer, each time a session of his own.
    const bobOnAlices = await nameAndEnsure(s, 'sess_shared', 'bob', '/bob');
    const bobOnUnknown = await nameAndEnsure(s, 'sess_nobody', 'bob', '/bob');
    const shape = (r: typeof bobOnAlices) => ({ ...r, id: r.id.replace(/[0-9a-f]{40}$/, 'HASH') });
    expect(shape(bobOnAlices)).toEqual(shape(bobOnUnknown));
    expect(bobOnAlices).toEqual({ id: scopedSessionId('bob', 'sess_shared'), created: true, owner: 'bob', project: '/bob' });
    expect(bobOnAlices.id).not.toBe(alice.id);
    // Alice's session is untouched, and naming her id again finds it.
    expect(sessions.get(alice.id)?.metadata).toMatchObject({ owner: 'alice', project_path: '/alice' });
    expect(await nameAndEnsure(s, 'sess_shared', 'alice', '/elsewhere')).toEqual({ ...alice, created: false });
    // Bob naming it again finds his own.
    expect(await nameAndEnsure(s, 'sess_shared', 'bob')).toEqual({ ...bobOnAlices, created: false });
  });

  test('the store sees the same calls whether or not another principal has the id', async () => {
    const a = service();
    await nameAndEnsure(a.service, 'sess_x', 'alice');
    a.calls.length = 0;
    await nameAndEnsure(a.service, 'sess_x', 'bob');
    const b = service();
    await nameAndEnsure(b.service, 'sess_x', 'bob');
    expect(a.calls).toEqual(b.calls);
  });

  test("a name that is already one of the caller's own ids names that session (created over HTTP, or a scoped id)", async () => {
    const { service: s } = service();
    const http = await s.create({ project_path: '/p', owner: 'alice' });
    expect(await s.clientSessionId(http.session_id, 'alice')).toBe(http.session_id);
    expect(await s.clientSessionId(http.session_id, 'bob')).toBe(scopedSessionId('bob', http.session_id));
    const scoped = (await nameAndEnsure(s, 'mine', 'alice')).id;
    expect(await s.clientSessionId(scoped, 'alice')).toBe(scoped);
    expect(await s.clientSessionId(scoped, 'bob')).not.toBe(scoped);
  });

  test('with auth off (no principal) the name is the id, as before', async () => {
    const { service: s, calls } = service();
    expect(await s.clientSessionId('sess_plain', undefined)).toBe('sess_plain');
    expect(calls).toEqual([]);
    expect(await nameAndEnsure(s, 'sess_plain', undefined)).toEqual({ id: 'sess_plain', created: true, owner: undefined, project: '/p' });
    expect(await nameAndEnsure(s, 'sess_plain', undefined)).toMatchObject({ id: 'sess_plain', created: false });
  });

  test("ensure on another principal's stored id still answers SESSION_NOT_FOUND, as open does", async () => {
    const { service: s } = service();
    const { id } = await nameAndEnsure(s, 'x', 'alice');
    await expect(s.ensure(id, { project_path: '/p', owner: 'bob' })).rejects.toMatchObject({ code: ErrorCode.SESSION_NOT_FOUND, message: `no session ${id}` });
    await expect(s.open('no-such', 'bob')).rejects.toMatchObject({ code: ErrorCode.SESSION_NOT_FOUND, message: 'no session no-such' });
  });

  test('scoped ids are valid WebSocket session ids and store ids, and differ per principal and name', () => {
    const ids = [scopedSessionId('alice', 'x'), scopedSessionId('bob', 'x'), scopedSessionId('alice', 'y'), scopedSessionId('al', 'ice\u0000x')];
    expect(new Set(ids).size).toBe(ids.length);
    expect(scopedSessionId('alice', 'x')).toBe(scopedSessionId('alice', 'x'));
    for (const id of ids) {
      expect(id).toMatch(/^named-[0-9a-f]{40}$/);
      expect(chatRequestSchema.safeParse({ message: 'm', history: [], model: '', sessionId: id }).success).toBe(true);
    }
  });
});

describe('the project directory of a new session', () => {
  const denied = async (p: string) => {
    if (p === '/locked') throw new StrandError(ErrorCode.PERMISSION_DENIED, 'project_path /locked: no');
  };

  test('create and ensure refuse a directory the gateway may not use, and create nothing', async () => {
    const { service: s, sessions } = service(denied);
    await expect(s.create({ project_path: '/locked' })).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    await expect(s.ensure('fresh', { project_path: '/locked' })).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    expect(sessions.size).toBe(0);
    expect((await s.create({ project_path: '/open' })).session_id).toBe('gen1');
  });

  test('an existing session keeps its project: naming it with another workspace is not checked', async () => {
    const { service: s } = service(denied);
    await s.ensure('kept', { project_path: '/open' });
    expect(await s.ensure('kept', { project_path: '/locked' })).toMatchObject({ created: false });
  });
});

describe('a new session', () => {
  test("is active because its workflow was started, with the record's project, model and owner", async () => {
    const { service: s, started } = service();
    const got = await s.create({ project_path: '/p', model: 'openai/gpt-5-mini', owner: 'alice' });
    expect(got.status).toBe('active');
    expect(started).toEqual([{ session_id: got.session_id, project_path: '/p', model: 'openai/gpt-5-mini', owner: 'alice' }]);
  });

  test('is dormant, and still created, when Temporal cannot be reached', async () => {
    const { service: s, sessions } = service(undefined, startedWorkflows(new StrandError(ErrorCode.UNAVAILABLE, 'Temporal is not reachable')));
    const got = await s.create({ project_path: '/p' });
    expect(got.status).toBe('dormant');
    expect(sessions.has(got.session_id)).toBe(true);
  });

  test('stores its model once, inside the settings', async () => {
    const { service: s, sessions } = service();
    const got = await s.create({ project_path: '/p', model: 'openai/gpt-5-mini', config: { auto_approve_readonly: false } });
    const md = sessions.get(got.session_id)!.metadata!;
    expect(md).not.toHaveProperty('model');
    expect(md['strand.settings']).toMatchObject({ model: 'openai/gpt-5-mini', approval: { auto_approve_readonly: false } });
  });

  test('with a model of a provider that is not configured is refused as the model command refuses it, and nothing is created', async () => {
    const { service: s, sessions, started } = service();
    const create = s.create({ project_path: '/p', model: 'anthropic/claude-sonnet-4-5' });
    await expect(create).rejects.toMatchObject({ code: ErrorCode.UNKNOWN_MODEL });
    const refused = await create.catch((err: Error) => err.message);
    expect(() => s.models.resolve('anthropic/claude-sonnet-4-5')).toThrow(refused as string);
    expect(refused).toMatch(/provider "anthropic" is not configured/);
    expect(sessions.size).toBe(0);
    expect(started).toEqual([]);
  });
});

/**
 * SessionService.prompt: the running workflow first (it checks the caller: promptRunning, tested on the
 * dev server in test/workflows/checked-prompt.dev-server.test.ts), the store read and update-with-start
 * only when it cannot answer; every refusal as the store read's.
 */
describe('prompt', () => {
  function promptService(running: (id: string, principal: string | undefined) => PromptAccepted | undefined) {
    const sent: string[] = [];
    const accepted = (n: number): PromptAccepted => ({ turn_id: `t${n}`, turn_number: n, agent_state: 'thinking', queued: false, duplicate: false });
    const commands = {
      promptRunning: async (id: string, principal: string | undefined, p: PromptCommand) => (sent.push(`running ${id} ${principal ?? '-'} ${p.text}`), running(id, principal)),
      prompt: async (info: { session_id: string; owner?: string; job_id?: string }, p: PromptCommand) => (sent.push(`withStart ${info.session_id} ${info.owner ?? '-'} ${info.job_id ?? '-'} ${p.text}`), accepted(1)),
      jobSteer: async () => ({ delivered: false, turn_id: null }),
      ensureRunning: async () => undefined,
    };
    const mem = memoryStore();
    const s = new SessionService({ store: mem.store, commands: commands as unknown as SessionCommands, reader: {} as AgentEventReader, defaultModel: 'scripted/echo' });
    return { ...mem, s, sent, accepted };
  }

  test('to a running session reads no store before the update; only a first turn reads it after, for the title', async () => {
    const p = promptService((_id, principal) => (principal === 'alice' ? { turn_id: 't2', turn_number: 2, agent_state: 'thinking', queued: false, duplicate: false } : undefined));
    const { session_id } = await p.s.create({ project_path: '/work/proj', owner: 'alice' });
    p.calls.length = 0;
    expect(await p.s.prompt(session_id, 'alice', { text: 'second' })).toMatchObject({ turn_id: 't2' });
    expect(p.calls).toEqual([]);
    expect(p.sent).toEqual([`running ${session_id} alice second`]);

    const first = promptService(() => ({ turn_id: 't1', turn_number: 1, agent_state: 'thinking', queued: false, duplicate: false }));
    const made = await first.s.create({ project_path: '/work/proj' });
    first.calls.length = 0;
    await first.s.prompt(made.session_id, undefined, { text: 'fix the parser please' });
    expect(first.calls).toEqual([`get ${made.session_id}`, `setMeta ${made.session_id}`]);
    expect(first.sessions.get(made.session_id)!.title).toBe('fix the parser please');
  });

  test('when no run can answer: the store read decides (unknown and another\'s alike, a job\'s session), then update-with-start', async () => {
    const p = promptService(() => undefined);
    const { session_id } = await p.s.create({ project_path: '/p', owner: 'alice' });
    const refusals = await Promise.all([p.s.prompt(session_id, 'bob', { text: 'hi' }), p.s.prompt('nope', 'bob', { text: 'hi' })].map((x) => x.catch((e: StrandError) => [e.code, e.message.replace(/nope|gen\d+/, 'ID')])));
    expect(refusals).toEqual([
      [ErrorCode.SESSION_NOT_FOUND, 'no session ID'],
      [ErrorCode.SESSION_NOT_FOUND, 'no session ID'],
    ]);
    expect(await p.s.prompt(session_id, 'alice', { text: 'hi' })).toMatchObject({ turn_id: 't1' });
    expect(p.sent.at(-1)).toBe(`withStart ${session_id} alice - hi`);

    // A job's session: JOB_SESSION from the record (its workflow, were one running, sends the gateway here too).
    p.sessions.set('job-j1', { ...p.sessions.get(session_id)!, session_id: 'job-j1', metadata: { ...p.sessions.get(session_id)!.metadata, 'strand.job': 'j1' } });
    await expect(p.s.prompt('job-j1', 'alice', { text: 'hi' })).rejects.toMatchObject({ code: ErrorCode.JOB_SESSION, details: { job_id: 'j1' } });
  });
});
