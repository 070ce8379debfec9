import { ErrorCode, StrandError } from '../../contracts/errors';
import type { StoreClient } from '../../contracts/session-store/client';
import type { ChatRequest, ChatStreamTerminal } from '../../contracts/ws-rpc';
import { createLogger } from '../../services/common/logger';
import type { AgentEventReader, EventSubscription } from '../../services/gateway/events/agent-event-reader';
import { SessionService } from '../../services/gateway/sessions/session-service';
import type { SessionCommands } from '../../services/gateway/temporal/session-commands';
import { ChatRun } from '../../services/gateway/ws/chat-run';
import { memoryStorePort } from '../harness/memory-store-port';

/**
 * What a WebSocket chat costs the session store before its prompt goes to the workflow: every
 * StoreClient call counted, against the store's real domain logic in memory. The session is opened
 * (read, owner checked) once per chat start and every later step acts on that reference, so a chat
 * on a session the client named reads it twice (the name resolved, then the session made ready),
 * where it read it again at every step before (measured on the code before SessionRef: 6 reads before
 * the prompt for a new session with history, 6 for an existing one switching its model).
 */
async function setup() {
  const { store } = await memoryStorePort();
  const calls: string[] = [];
  // Each StoreClient method the session layer may call, counted and handed to the store itself.
  const counted = new Proxy({} as StoreClient, {
    get: (_t, name: string) => async (req: unknown) => {
      calls.push(name);
      return (store as unknown as Record<string, (r: unknown) => unknown>)[name]!.call(store, req);
    },
  });
  let callsAtPrompt: string[] | undefined;
  const commands = {
    live: async () => undefined,
    queried: async () => undefined,
    ensureRunning: async () => undefined,
    prompt: async () => {
      callsAtPrompt = [...calls];
      // The rest of a chat (the turn's events) is tested end to end: this one stops at its prompt.
      throw new StrandError(ErrorCode.UNAVAILABLE, 'stopped at the prompt');
    },
  } as unknown as SessionCommands;
  const quiet: EventSubscription = { stop: () => undefined, async *[Symbol.asyncIterator]() {} } as unknown as EventSubscription;
  const reader = { open: async () => quiet } as unknown as AgentEventReader;
  const sessions = new SessionService({ store: counted, commands, reader, defaultModel: 'scripted/echo', checkProject: async () => undefined });
  const log = createLogger('test', 'silent');

  /** One `chat.start` for `principal` on the session it names `name`, as RpcConnection runs it. */
  const chat = async (name: string, principal: string, request: Partial<ChatRequest>) => {
    calls.length = 0;
    callsAtPrompt = undefined;
    const sessionId = await sessions.clientSessionId(name, principal);
    let terminal: ChatStreamTerminal | undefined;
    const run = new ChatRun({ sessions, log }, { sessionId, requestKey: `req-${Math.random()}`, principal }, { started: () => undefined, event: () => undefined, terminal: (t) => (terminal = t) });
    await run.start({ message: 'hello', history: [], model: '', ...request } as ChatRequest);
    expect(terminal).toMatchObject({ type: 'error', errorMessage: 'stopped at the prompt' });
    return callsAtPrompt!;
  };
  return { chat };
}

test('a chat on a new session it names reads the session twice before its prompt: the name, then ensure', async () => {
  const { chat } = await setup();
  const history = [
    { id: 'h1', role: 'user', content: 'earlier', kind: 'text', timestamp: '2026-01-02T03:04:05.000Z' },
    { id: 'h2', role: 'assistant', content: 'answer', kind: 'text', timestamp: '2026-01-02T03:04:06.000Z' },
  ];
  const calls = await chat('mine', 'alice', { history } as Partial<ChatRequest>);
  expect(calls).toEqual(['get', 'get', 'ensure', 'appendMany']);
  expect(calls.filter((c) => c === 'get')).toHaveLength(2);
});

test('a chat on an existing session that switches its model reads it twice too; the dormant switch is one write', async () => {
  const { chat } = await setup();
  await chat('mine', 'alice', {});
  const calls = await chat('mine', 'alice', { model: 'scripted/slow' });
  expect(calls).toEqual(['get', 'get', 'setMeta']);
});
