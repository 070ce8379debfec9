import { ErrorCode } from '../../../contracts/errors';
import { newSessionMetadata } from '../../../contracts/session-record';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import { RUNTIME_KEYS } from '../../../contracts/session-settings';
import type { AgentEventReader } from '../events/agent-event-reader';
import type { SessionCommands } from '../temporal/session-commands';
import { SessionService } from './session-service';

/**
 * A SessionRef is the session read and its owner checked once (SessionService.open); what it does
 * afterwards acts on that record: its own writes keep it true, and the one read that must see the
 * newest record (requestTurn) reads it again. Against a store that counts its reads and a dormant
 * session (no workflow running), as most of a ref's work happens there without Temporal.
 */
function setup() {
  const records = new Map<string, SessionMeta>();
  const reads: string[] = [];
  const put = (id: string, metadata: Record<string, unknown>) =>
    records.set(id, { session_id: id, title: '', description: '', status: 'idle', metadata, created_at: 1, updated_at: 1, message_count: 0 });
  put('mine', newSessionMetadata({ project_path: '/p', model: 'scripted/echo', owner: 'alice' }));
  const store = {
    get: async ({ session_id }: { session_id: string }) => (reads.push(session_id), records.has(session_id) ? { meta: records.get(session_id)! } : null),
    setMeta: async ({ session_id, metadata_patch }: { session_id: string; metadata_patch: Record<string, unknown> }) => {
      const meta = records.get(session_id)!;
      records.set(session_id, { ...meta, metadata: { ...meta.metadata, ...metadata_patch } });
    },
  } as unknown as StoreClient;
  const started: Array<{ model: string }> = [];
  const commands = {
    live: async () => undefined,
    job: async () => undefined,
    prompt: async (info: { model: string }) => (started.push(info), { turn_id: 't1', turn_number: 1, agent_state: 'thinking', queued: false, duplicate: false }),
  } as unknown as SessionCommands;
  const sessions = new SessionService({ store, commands, reader: {} as AgentEventReader, defaultModel: 'scripted/echo' });
  return { sessions, records, reads, started, put };
}

test("another principal's session answers exactly as an unknown one, and nothing is read twice for it", async () => {
  const { sessions, reads } = setup();
  const other = await sessions.open('mine', 'bob').catch((e: unknown) => e);
  const unknown = await sessions.open('nope', 'bob').catch((e: unknown) => e);
  expect(other).toMatchObject({ code: ErrorCode.SESSION_NOT_FOUND, message: 'no session mine' });
  expect(unknown).toMatchObject({ code: ErrorCode.SESSION_NOT_FOUND, message: 'no session nope' });
  expect(reads).toEqual(['mine', 'nope']);
  expect((await sessions.open('mine', 'alice')).id).toBe('mine');
  expect((await sessions.open('mine')).id).toBe('mine'); // auth off: every session is the caller's
});

test("a dormant session's settings change is written once and the ref's next prompt starts with it, with no read", async () => {
  const { sessions, reads, records, started } = setup();
  const session = await sessions.open('mine', 'alice');
  const changed = await session.updateSettings({ model: 'scripted/slow', thinking_level: 'off' });
  expect(changed.model).toBe('scripted/slow');
  expect((records.get('mine')!.metadata![RUNTIME_KEYS.settings] as { model: string }).model).toBe('scripted/slow');
  expect(session.storedSettings().model).toBe('scripted/slow');
  expect((await session.describe()).model).toBe('scripted/slow');
  await session.prompt({ text: 'hi' });
  expect(started.map((s) => s.model)).toEqual(['scripted/slow']);
  expect(reads).toEqual(['mine']);
});

test('requestTurn reads the record again: a turn that began after the ref was opened is found', async () => {
  const { sessions, records, reads } = setup();
  const session = await sessions.open('mine', 'alice');
  expect(await session.requestTurn('req-1')).toBeNull();
  const meta = records.get('mine')!;
  records.set('mine', { ...meta, metadata: { ...meta.metadata, [RUNTIME_KEYS.requests]: [{ request_id: 'req-1', turn_id: 't1', turn_number: 1 }] } });
  expect(await session.requestTurn('req-1')).toEqual({ turn_id: 't1', status: 'finished' });
  expect(reads).toEqual(['mine', 'mine', 'mine']);
  records.delete('mine');
  await expect(session.requestTurn('req-1')).rejects.toMatchObject({ code: ErrorCode.SESSION_NOT_FOUND });
});

test('a paced service gates every event read its refs open; the service it came from does not', async () => {
  const { records } = setup();
  const events = [1, 2, 3].map((seq) => ({ seq, envelope: {} as never }));
  const reader = {
    open: async () => ({
      stop: () => undefined,
      async *[Symbol.asyncIterator]() {
        yield* events;
      },
    }),
  } as unknown as AgentEventReader;
  const store = { get: async ({ session_id }: { session_id: string }) => ({ meta: records.get(session_id)! }) } as unknown as StoreClient;
  const plain = new SessionService({ store, commands: {} as SessionCommands, reader, defaultModel: 'scripted/echo' });
  let asked = 0;
  // The client takes one event, then is behind: the read stops there.
  const paced = plain.paced(async () => ++asked < 1);
  const read = async (s: SessionService) => {
    const seen: number[] = [];
    for await (const e of await (await s.open('mine')).events(0)) seen.push(e.seq);
    return seen;
  };
  expect(await read(paced)).toEqual([1]);
  expect(asked).toBe(1);
  expect(await read(plain)).toEqual([1, 2, 3]);
});

test('a delete ends the workflow before and after the store forgets the session, so no run a prompt started meanwhile outlives it', async () => {
  const { sessions, records } = setup();
  const order: string[] = [];
  const session = await sessions.open('mine', 'alice');
  const deps = (session as unknown as { deps: { commands: Record<string, unknown>; store: Record<string, unknown> } }).deps;
  deps.commands.abort = async () => (order.push('abort'), { aborted: false, turn_id: null });
  deps.commands.close = async () => void order.push('close');
  deps.store.delete = async ({ session_id }: { session_id: string }) => (order.push('store delete'), records.delete(session_id), { deleted: true });
  await session.delete();
  expect(order).toEqual(['abort', 'close', 'store delete', 'close']);
});
