import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EdnMap } from '../../services/gateway/edn/edn-value';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { dataOf, EdnTestClient, topicOf, type Frame } from './edn-session-client';

/**
 * The shared setup of the EDN session e2e files: one real stack per file with the scripted
 * provider's test scripts, a project folder, EDN clients over TCP or a spawned `strand rpc-edn`
 * (closed, killed and checked for protocol violations by the fixture), and the steps the Emacs
 * client takes to connect (its exact client info and topic list, psi v0.1.2049).
 */
const REPO = path.resolve(__dirname, '../..');

// psi-rpc-default-topics of the Emacs client: no tool/delta.
export const EMACS_TOPICS = ['assistant/delta', 'assistant/thinking-delta', 'assistant/message', 'tool/start', 'tool/executing', 'tool/update', 'tool/result', 'session/updated', 'session/resumed', 'session/rehydrated', 'context/updated', 'footer/updated', 'command-result', 'error', 'ui/dialog-requested', 'ui/frontend-action-requested', 'ui/widgets-updated', 'ui/widget-specs-updated', 'ui/status-updated', 'ui/notification'];
export const EMACS_CLIENT_INFO = { name: 'psi-emacs', version: '0.1.0', 'protocol-version': '1.0', features: [] };
export const SLOW_WORDS = Array.from({ length: 40 }, (_, i) => `w${i} `);

export const text = (frames: Frame[]) => frames.map((f) => dataOf(f).text).join('');
export const idleAfter = (c: EdnTestClient, from: number) => c.waitFor((f) => topicOf(f) === 'session/updated' && dataOf(f)['is-streaming'] === false, 30_000, from);

/** Handshake + the Emacs client's subscribe; returns the focus session id. */
export async function bootstrap(c: EdnTestClient): Promise<string> {
  const info = (await c.request('handshake', { 'client-info': EMACS_CLIENT_INFO }, 60_000))['server-info'] as EdnMap;
  await c.request('subscribe', { topics: EMACS_TOPICS });
  return info['session-id'] as string;
}

export interface EdnStack {
  readonly stack: TestStack;
  readonly workspace: string;
  tcp(): Promise<EdnTestClient>;
  stdio(args: string[]): EdnTestClient;
  /** A session in the workspace (made over HTTP), focused on this connection with the rehydration sequence. */
  focusNewSession(c: EdnTestClient): Promise<string>;
}

/** Registers the file's beforeAll/afterAll/afterEach; the returned object is usable inside tests. */
export function useEdnStack(name: string): EdnStack {
  jest.setTimeout(60_000);
  const scripts = fs.mkdtempSync(path.join(os.tmpdir(), `strand-${name}-scripts-`));
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), `strand-${name}-project-`));
  const clients: EdnTestClient[] = [];
  const children: ChildProcess[] = [];
  let stack: TestStack | undefined;

  beforeAll(async () => {
    const script = (n: string, steps: unknown[]) => fs.writeFileSync(path.join(scripts, `${n}.json`), JSON.stringify({ steps }));
    script('edn-write', [[{ type: 'text', text: 'I will write the note.' }, { type: 'tool_call', name: 'write_file', args: { path: 'note.txt', content: 'hello from edn' } }], [{ type: 'text', text: 'Done: {{tool_result_first_line}}' }]]);
    script('edn-slow', [SLOW_WORDS.flatMap((w) => [{ type: 'text', text: [w] }, { type: 'delay', ms: 60 }]).concat([{ type: 'text', text: ['the end.'] }])]);
    // 200 ms a word in the second step: a second client connects, shakes hands and joins while it runs.
    script('edn-read-slow', [[{ type: 'text', text: 'Reading first. ' }, { type: 'tool_call', name: 'read_file', args: { path: 'seed.txt' } }], SLOW_WORDS.slice(0, 25).flatMap((w) => [{ type: 'text', text: [w] }, { type: 'delay', ms: 200 }])]);
    script('edn-interrupt', [
      [...SLOW_WORDS.slice(0, 20).flatMap((w): unknown[] => [{ type: 'text', text: [w] }, { type: 'delay', ms: 60 }]), { type: 'tool_call', name: 'read_file', args: { path: 'seed.txt' } }],
      [{ type: 'text', text: 'the second step must not run' }],
    ]);
    fs.writeFileSync(path.join(workspace, 'seed.txt'), 'seed\n');
    stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts, STRAND_SCRIPTED_DELTA_DELAY_MS: '5' });
  }, 180_000);

  afterAll(async () => {
    for (const c of clients) c.close();
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    await stack?.teardown();
    fs.rmSync(scripts, { recursive: true, force: true });
    fs.rmSync(workspace, { recursive: true, force: true });
  }, 60_000);

  afterEach(() => {
    for (const c of clients) expect(c.violations).toEqual([]);
  });

  const running = () => {
    if (!stack) throw new Error('the stack is not started');
    return stack;
  };
  return {
    get stack() {
      return running();
    },
    workspace,
    async tcp() {
      const c = await EdnTestClient.tcp(running().urls.edn);
      clients.push(c);
      return c;
    },
    stdio(args) {
      const { urls } = running();
      const env = { ...process.env, STRAND_NATS_URL: urls.nats, STRAND_TEMPORAL_ADDRESS: urls.temporal, STRAND_LOG_LEVEL: 'warn' };
      const { client, child } = EdnTestClient.stdio(process.execPath, [path.join(REPO, 'bin/strand.cjs'), 'rpc-edn', ...args], env);
      clients.push(client);
      children.push(child);
      return client;
    },
    async focusNewSession(c) {
      const created = await http(running().urls.gateway, 'POST', '/api/sessions', { project_path: workspace });
      expect(created.status).toBe(201);
      await c.request('switch_session', { 'session-id': created.body.session_id });
      return created.body.session_id;
    },
  };
}
