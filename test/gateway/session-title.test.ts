import type { StoreClient } from '../../contracts/session-store/client';
import type { SessionCommands } from '../../services/gateway/temporal/session-commands';
import type { AgentEventReader } from '../../services/gateway/events/agent-event-reader';
import { SessionService } from '../../services/gateway/sessions/session-service';
import { titleFromPrompt } from '../../services/gateway/sessions/session-title';
import { sessionLabel } from '../../clients/terminal/session-choice';
import { memoryStorePort } from '../harness/memory-store-port';

/**
 * Sessions of one folder read apart: a session the gateway titled after its folder takes its first
 * prompt's first words as its title (once), over the store's real domain logic; a title the client
 * gave stays; a name the user gives is shown before either.
 */
async function setup() {
  const { store } = await memoryStorePort();
  const client = {
    get: (r: Parameters<StoreClient['get']>[0]) => store.get(r),
    create: (r: Parameters<StoreClient['create']>[0]) => store.create(r as Parameters<typeof store.create>[0]),
    setMeta: (r: Parameters<StoreClient['setMeta']>[0]) => store.setMeta(r as Parameters<typeof store.setMeta>[0]),
  } as unknown as StoreClient;
  let turn = 0;
  const commands = {
    live: async () => undefined,
    ensureRunning: async () => undefined,
    prompt: async () => ({ turn_id: `t${++turn}`, turn_number: turn, agent_state: 'thinking', queued: false }),
  } as unknown as SessionCommands;
  const sessions = new SessionService({ store: client, commands, reader: {} as AgentEventReader, defaultModel: 'scripted/echo' });
  return { store, sessions };
}

test("the folder's name until the first prompt, then the prompt's first words; later prompts change nothing", async () => {
  const { store, sessions } = await setup();
  const a = await sessions.create({ project_path: '/home/me/app' });
  const b = await sessions.create({ project_path: '/home/me/app' });
  expect((await store.get({ session_id: a.session_id }))!.meta.title).toBe('app');
  await (await sessions.open(a.session_id)).prompt({ text: '  Fix the flaky login test\nin auth.spec.ts please' });
  await (await sessions.open(b.session_id)).prompt({ text: 'Add a dark mode toggle to the settings page of the web app, with tests' });
  await (await sessions.open(a.session_id)).prompt({ text: 'and now something else' });
  expect((await store.get({ session_id: a.session_id }))!.meta.title).toBe('Fix the flaky login test');
  expect((await store.get({ session_id: b.session_id }))!.meta.title).toBe('Add a dark mode toggle to the settings…');
  expect((await sessions.open(a.session_id)).meta.title).toBe('Fix the flaky login test');
});

test('a title the client gave at creation is kept', async () => {
  const { store, sessions } = await setup();
  const c = await sessions.create({ project_path: '/home/me/app', title: 'release prep' });
  await (await sessions.open(c.session_id)).prompt({ text: 'bump the version' });
  expect((await store.get({ session_id: c.session_id }))!.meta.title).toBe('release prep');
});

test('first words: the first non-empty line, at most 8 words and 60 characters', () => {
  expect(titleFromPrompt('\n\n  hello   there  \nsecond line')).toBe('hello there');
  expect(titleFromPrompt('one two three four five six seven eight nine')).toBe('one two three four five six seven eight…');
  expect(titleFromPrompt('x'.repeat(80)).length).toBe(60);
});

test("the chat's session picker shows the user's name before the title", () => {
  const listed = { session_id: 's1', title: 'Fix the flaky login test', name: 'login work', message_count: 2, updated_at: 0, model: 'scripted/echo', active_turn: null, status: 'active' } as unknown as Parameters<typeof sessionLabel>[0];
  expect(sessionLabel(listed, 0)).toMatch(/^login work · /);
  expect(sessionLabel({ ...listed, name: undefined } as typeof listed, 0)).toMatch(/^Fix the flaky login test · /);
});
