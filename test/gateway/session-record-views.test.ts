import { createSessionStoreActivities } from '../../activities/store/session-activities';
import type { StoreClient } from '../../contracts/session-store/client';
import type { SessionCommands } from '../../services/gateway/temporal/session-commands';
import type { AgentEventReader } from '../../services/gateway/events/agent-event-reader';
import { SessionService } from '../../services/gateway/sessions/session-service';
import { memoryStorePort } from '../harness/memory-store-port';

/**
 * A dormant session's view (what GET /api/sessions/{id} answers while no workflow runs) against what
 * its workflow loads when it comes back (loadSessionRecord), over the store's real domain logic, for
 * every shape of stored metadata: current records, records that predate the model being stored once,
 * and records other writers made. The gateway here is configured with a default model of its own, so
 * a fallback that read the process's configuration instead of the record would show.
 */
async function setup() {
  const { port, store } = await memoryStorePort();
  const client = {
    get: (r: Parameters<StoreClient['get']>[0]) => store.get(r),
    create: (r: Parameters<StoreClient['create']>[0]) => store.create(r as Parameters<typeof store.create>[0]),
  } as unknown as StoreClient;
  const dormant = { live: async () => undefined, ensureRunning: async () => undefined } as unknown as SessionCommands;
  const sessions = new SessionService({ store: client, commands: dormant, reader: {} as AgentEventReader, defaultModel: 'openai/gpt-5-mini', configuredProviders: ['openai'] });
  const activities = createSessionStoreActivities(port);
  return { store, sessions, activities };
}

const cases: Array<[string, Record<string, unknown> | undefined]> = [
  ['settings stored by the workflow, and a stale model key of the creation', { project_path: '/a', model: 'scripted/echo', 'strand.settings': { model: 'openai/gpt-5-mini', thinking_level: 'high', auto_retry: false } }],
  ['created before the model was stored once: model key and approval config', { project_path: '/b', model: 'openai/gpt-5', config: { auto_approve_readonly: false, approval_timeout_s: 30, save_transcript: true } }],
  ['made directly on the store, without a model', { project_path: '/c' }],
  ['a model key that is not a model id', { project_path: '/d', model: 'nonsense' }],
  ['malformed settings and counters', { project_path: 7, 'strand.settings': { model: 42 }, 'strand.last_turn': -1, 'strand.requests': 'x', model: 'scripted/slow' }],
  ['no metadata at all', undefined],
];

describe("a dormant session's view is what its workflow loads", () => {
  test.each(cases)('%s', async (_name, metadata) => {
    const { store, sessions, activities } = await setup();
    const { session_id } = await store.create({ title: 't', ...(metadata ? { metadata } : {}) } as Parameters<typeof store.create>[0]);
    const session = await sessions.open(session_id);
    const view = await session.describe();
    const loaded = await activities.loadSessionRecord(session_id);
    expect(view.status).toBe('dormant');
    expect({ project_path: view.project_path, model: view.model, thinking_level: view.thinking_level }).toEqual({
      project_path: loaded.project_path,
      model: loaded.settings.model,
      thinking_level: loaded.settings.thinking_level,
    });
    expect(session.storedSettings()).toEqual(loaded.settings);
  });

  test('the fallbacks decided once: settings win over the model key, the legacy config sets approval, scripted/echo when nothing names a model', async () => {
    const { store, activities } = await setup();
    const load = async (metadata: Record<string, unknown>) => activities.loadSessionRecord((await store.create({ title: 't', metadata } as Parameters<typeof store.create>[0])).session_id);
    expect((await load(cases[0]![1]!)).settings).toMatchObject({ model: 'openai/gpt-5-mini', thinking_level: 'high', auto_retry: false });
    expect((await load(cases[1]![1]!)).settings).toMatchObject({ model: 'openai/gpt-5', approval: { auto_approve_readonly: false, timeout_s: 30 } });
    expect((await load(cases[2]![1]!)).settings.model).toBe('scripted/echo');
    expect(await load(cases[4]![1]!)).toEqual({ project_path: '', settings: expect.objectContaining({ model: 'scripted/slow' }), last_turn: 0, requests: [] });
  });

  test('a session created through the gateway is loaded by its workflow with the model and approval it was created with', async () => {
    const { sessions, activities } = await setup();
    const { session_id, meta } = await sessions.create({ project_path: '/e', model: 'scripted/slow', config: { approval_timeout_s: 5 } });
    expect(meta.metadata).not.toHaveProperty('model');
    const loaded = await activities.loadSessionRecord(session_id);
    expect(loaded.settings).toMatchObject({ model: 'scripted/slow', approval: { timeout_s: 5 } });
    expect((await (await sessions.open(session_id)).describe()).model).toBe('scripted/slow');
  });
});
