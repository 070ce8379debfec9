import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { freePort } from '../../infra/stack/free-port';
import { REPO_ROOT } from '../../infra/stack/stack-config';
import { encodeEdn } from '../../services/gateway/edn/codec';
import { kw, type EdnMap } from '../../services/gateway/edn/edn-value';
import { EdnErrorCode } from '../../services/gateway/edn/protocol';
import { EDN_OPS } from '../../services/gateway/edn/session/index';
import { connectEdnTcp, kindOf, spawnEdn, type EdnProcess, type EdnTcpClient, type EdnTestClient } from '../harness/edn-client';
import { startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * The EDN wire layer (docs/edn.md) against a real stack: `strand rpc-edn` spawned the way an
 * editor spawns it (the bin script from a project directory, and `npx strand rpc-edn` from the
 * repository), and the gateway's TCP port: envelope rules and every wire-level error code, the
 * handshake gate and version check, tokens, `:seq`, stdout carrying nothing but frames, exit on EOF
 * and SIGTERM, a clear answer when the stack is down, the connection cap, slow consumers, and
 * 10,000+ generated malformed frames while a healthy session prompts on another connection.
 */
const TOKEN = 'tok-edn-alice';
const BOB_TOKEN = 'tok-edn-bob';
const MAX_CONNECTIONS = 8;
const MAX_PENDING = 8;
const MAX_FRAME = 64 * 1024;
const BIN = path.join(REPO_ROOT, 'bin', 'strand.cjs');
const DOCUMENTED = new Set<string>(Object.values(EdnErrorCode));
const ERROR_KEYS = new Set(['kind', 'error-code', 'error-message', 'id', 'op', 'retryable', 'data']);

let stack: TestStack;
let ednPort: number;
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-edn-project-'));
const tcpClients: EdnTcpClient[] = [];
const procs: EdnProcess[] = [];

beforeAll(async () => {
  stack = await startTestStack({
    STRAND_TOKENS: `${TOKEN}:alice,${BOB_TOKEN}:bob`,
    STRAND_EDN_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    STRAND_EDN_MAX_PENDING: String(MAX_PENDING),
    STRAND_EDN_MAX_FRAME_BYTES: String(MAX_FRAME),
    STRAND_EDN_MAX_SEND_BUFFER_BYTES: String(256 * 1024),
    // The fuzz keeps one connection without a handshake for as long as it runs.
    STRAND_EDN_HANDSHAKE_TIMEOUT_MS: '600000',
    STRAND_SCRIPTED_DELTA_DELAY_MS: '5',
  });
  ednPort = stack.config.ports.edn!;
}, 180_000);

afterAll(async () => {
  for (const c of tcpClients) c.socket.destroy();
  for (const p of procs) p.kill();
  await stack?.teardown();
  fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

afterEach(async () => {
  for (const c of [...tcpClients, ...procs.map((p) => p.client)]) expect(c.invalid).toEqual([]);
  for (const c of tcpClients.splice(0)) c.socket.destroy();
  // The server counts a connection until it sees the close.
  await new Promise((r) => setTimeout(r, 100));
});

/** The environment an editor's `strand rpc-edn` would have, pointed at the test stack. */
const cliEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  STRAND_NATS_URL: stack.urls.nats,
  STRAND_TEMPORAL_ADDRESS: stack.urls.temporal,
  STRAND_LOG_LEVEL: 'debug',
  STRAND_EDN_MAX_PENDING: String(MAX_PENDING),
  ...extra,
});

/**
 * How long the first answer of a freshly spawned `strand rpc-edn` may take: it includes the process's
 * start (npx, tsx, the CLI's imports), seconds on a quiet machine but more than the client's default
 * 15 s on a loaded one (CI, tests of other files running alongside: the npx case ran out of it).
 */
const FIRST_ANSWER_MS = 60_000;

function rpcEdn(how: 'bin' | 'npx', extra: NodeJS.ProcessEnv = {}): EdnProcess {
  const p = how === 'bin' ? spawnEdn(BIN, ['rpc-edn'], { cwd: workspace, env: cliEnv(extra) }) : spawnEdn('npx', ['strand', 'rpc-edn'], { cwd: REPO_ROOT, env: cliEnv(extra) });
  procs.push(p);
  return p;
}

async function tcp(): Promise<EdnTcpClient> {
  const c = await connectEdnTcp(ednPort);
  tcpClients.push(c);
  return c;
}

async function authed(): Promise<EdnTcpClient> {
  const c = await tcp();
  expect(kindOf(await c.handshake({ 'auth-token': TOKEN }))).toBe('response');
  return c;
}

const req = (id: string, op: string, params?: EdnMap): EdnMap => ({ id, kind: kw('request'), op, ...(params ? { params } : {}) });
const codeOf = (f: EdnMap) => f['error-code'];

function expectDocumentedError(f: EdnMap): void {
  expect(kindOf(f)).toBe('error');
  expect(DOCUMENTED.has(f['error-code'] as string)).toBe(true);
  expect(typeof f['error-message']).toBe('string');
  for (const k of Object.keys(f)) expect(ERROR_KEYS.has(k)).toBe(true);
}

async function exitWithin(p: EdnProcess, ms: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return Promise.race([p.exited, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no exit within ${ms} ms; stderr:\n${p.stderr()}`)), ms))]);
}

describe('strand rpc-edn (stdio)', () => {
  test('the bin script from a project directory: handshake gate, version check, sessions in --cwd, :seq, only frames on stdout, exit 0 on EOF', async () => {
    const p = rpcEdn('bin');
    const c = p.client;
    expect(await c.request('ping', undefined, FIRST_ANSWER_MS)).toMatchObject({ 'error-code': EdnErrorCode.notReady, op: 'ping' });
    expect(await c.request('handshake', { 'client-info': { 'protocol-version': '2.0' } })).toMatchObject({ 'error-code': EdnErrorCode.unsupportedVersion });
    expect(codeOf(await c.request('ping'))).toBe(EdnErrorCode.notReady);
    expect(codeOf(await c.request('handshake', { 'client-info': { name: 'x' } }))).toBe(EdnErrorCode.invalidParams);
    const hello = await c.handshake();
    const info = (hello.data as EdnMap)['server-info'] as EdnMap;
    expect(info['protocol-version']).toBe('1.0');
    expect(await c.request('ping')).toMatchObject({ kind: kw('response'), ok: true, data: { pong: true } });

    // Sessions this process creates belong to the directory the editor started it in.
    const listed = (await c.request('list_sessions')).data as EdnMap;
    const mine = (listed.sessions as EdnMap[]).find((s) => s.id === info['session-id']);
    expect(mine?.['worktree-path']).toBe(fs.realpathSync(workspace));

    expect(kindOf(await c.request('subscribe', { topics: [] }))).toBe('response');
    const prompt = await c.request('prompt', { message: 'hi from stdio' });
    expect(prompt).toMatchObject({ kind: kw('response'), data: { accepted: true } });
    await c.waitFor((f) => f.event === 'assistant/message' && (f.data as EdnMap).text === 'You said: hi from stdio', 30_000, 'the answer');
    const events = c.events();
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    for (const e of events) expect(new Date(e.ts as string).toISOString()).toBe(e.ts);

    // Pending cap: MAX_PENDING + 1 requests in one write; the last one is refused, the rest answered.
    const before = c.frames.length;
    const isBurst = (f: EdnMap) => String(f.id).startsWith('burst-') && kindOf(f) !== 'event';
    c.send(Array.from({ length: MAX_PENDING + 1 }, (_, i) => `${encodeEdn(req(`burst-${i}`, 'ping'))}\n`).join(''));
    await c.waitFor(() => c.frames.slice(before).filter(isBurst).length === MAX_PENDING + 1, 10_000, 'every burst answer');
    const burst = c.frames.slice(before).filter(isBurst);
    expect(burst.filter((f) => codeOf(f) === EdnErrorCode.maxPending).map((f) => f.id)).toEqual([`burst-${MAX_PENDING}`]);
    expect(burst.filter((f) => kindOf(f) === 'response')).toHaveLength(MAX_PENDING);

    c.send('this is not edn\n');
    expect(codeOf(await c.waitFor((f) => codeOf(f) === EdnErrorCode.invalidFrame, 5_000))).toBe(EdnErrorCode.invalidFrame);

    p.child.stdin!.end();
    expect(await exitWithin(p, 10_000)).toEqual({ code: 0, signal: null });
    // Every stdout line parsed as a frame (afterEach checks `invalid`); logs went to stderr.
    expect(p.stderr()).toContain('rpc-edn loaded');
    expect(c.frames.length).toBeGreaterThan(10);
  }, 120_000);

  test('`npx strand rpc-edn` from the repository answers on stdout with frames alone and exits 0 on EOF', async () => {
    const p = rpcEdn('npx');
    const hello = await p.client.handshake({}, FIRST_ANSWER_MS);
    expect(kindOf(hello)).toBe('response');
    expect(await p.client.request('ping')).toMatchObject({ ok: true });
    p.child.stdin!.end();
    expect((await exitWithin(p, 15_000)).code).toBe(0);
    expect(p.client.frames).toHaveLength(2);
    expect(p.stderr()).toContain('rpc-edn');
  }, 120_000);

  test('SIGTERM ends it with exit code 0', async () => {
    const p = rpcEdn('bin');
    expect(kindOf(await p.client.handshake({}, FIRST_ANSWER_MS))).toBe('response');
    p.child.kill('SIGTERM');
    expect(await exitWithin(p, 10_000)).toEqual({ code: 0, signal: null });
    expect(p.stderr()).toContain('received SIGTERM');
  }, 90_000);

  test('with NATS down it says so on stderr and answers with a retryable runtime/failed naming it', async () => {
    const port = await freePort();
    const p = rpcEdn('bin', { STRAND_NATS_URL: `nats://127.0.0.1:${port}` });
    const answer = await p.client.handshake({}, FIRST_ANSWER_MS);
    expect(answer).toMatchObject({ kind: kw('error'), 'error-code': EdnErrorCode.failed, retryable: true, id: expect.any(String), op: 'handshake' });
    expect(answer['error-message']).toContain(`NATS at nats://127.0.0.1:${port} is not reachable`);
    expect(answer['error-message']).toContain('npm start');
    p.child.stdin!.end();
    expect((await exitWithin(p, 10_000)).code).toBe(0);
    expect(p.stderr()).toContain(`NATS at nats://127.0.0.1:${port} is not reachable`);
    expect(p.stderr()).not.toMatch(/^\s+at /m);
  }, 90_000);

  test('with Temporal down the answer names Temporal', async () => {
    const port = await freePort();
    const p = rpcEdn('bin', { STRAND_TEMPORAL_ADDRESS: `127.0.0.1:${port}` });
    const answer = await p.client.handshake({}, FIRST_ANSWER_MS);
    expect(answer).toMatchObject({ 'error-code': EdnErrorCode.failed, retryable: true });
    expect(answer['error-message']).toMatch(new RegExp(`Temporal at 127\\.0\\.0\\.1:${port} is not reachable.*npm start`));
    p.child.stdin!.end();
    expect((await exitWithin(p, 10_000)).code).toBe(0);
  }, 90_000);
});

describe('TCP', () => {
  test.each([
    ['no token', {}],
    ['a wrong token', { 'auth-token': 'tok-wrong' }],
  ])('%s: transport/unauthorized, then the connection is closed', async (_what, extra) => {
    const c = await tcp();
    expect(await c.handshake(extra as EdnMap)).toMatchObject({ kind: kw('error'), 'error-code': EdnErrorCode.unauthorized, op: 'handshake' });
    await c.waitForClose(5_000);
  });

  test("another principal's session answers over EDN exactly as an unknown one, and is left as it was", async () => {
    const alice = await authed();
    const aliceSession = ((await alice.request('new_session')).data as EdnMap)['session-id'] as string;
    expect(aliceSession).toMatch(/\S/);
    const bob = await tcp();
    expect(kindOf(await bob.handshake({ 'auth-token': BOB_TOKEN }))).toBe('response');
    const strip = (f: EdnMap, id: string) => ({ code: f['error-code'], op: f.op, message: String(f['error-message']).replaceAll(id, '<id>') });
    const unknown = 'sess_unknown_to_everyone';
    for (const [op, params] of [
      ['switch_session', (id: string) => ({ 'session-id': id })],
      ['get_messages', (id: string) => ({ 'session-id': id })],
      ['get_state', (id: string) => ({ 'session-id': id })],
      ['prompt', (id: string) => ({ 'session-id': id, message: 'hello from bob' })],
      ['set_model', (id: string) => ({ 'session-id': id, provider: 'scripted', 'model-id': 'echo' })],
      ['abort', (id: string) => ({ 'session-id': id })],
    ] as const) {
      const foreign = await bob.request(op, params(aliceSession));
      const none = await bob.request(op, params(unknown));
      expect([op, strip(foreign, aliceSession)]).toEqual([op, strip(none, unknown)]);
      expect(foreign['error-code']).toBe(EdnErrorCode.notFound);
    }
    // Nothing of bob's reached alice's session.
    const messages = (await alice.request('get_messages', { 'session-id': aliceSession })).data as EdnMap;
    expect(messages.messages).toEqual([]);
  });

  test('the right token: ready, and the gateway answers ops', async () => {
    const c = await authed();
    expect(await c.request('ping')).toMatchObject({ ok: true, data: { pong: true, 'protocol-version': '1.0' } });
  });

  test('envelope rules and the wire-level error codes, each echoing :id/:op when readable', async () => {
    const fresh = await tcp();
    const c = await authed();
    const cases: [EdnTestClient, string | Buffer, string, unknown, unknown][] = [
      [c, '\n', EdnErrorCode.invalidFrame, undefined, undefined],
      [c, '{:id "x" :kind :request :op "ping"\n', EdnErrorCode.invalidFrame, undefined, undefined],
      [c, '{:id "x" :kind :request :op "ping" :params #inst "2024-01-01"}\n', EdnErrorCode.invalidFrame, undefined, undefined],
      [c, Buffer.from([0xc3, 0x28, 0xff, 0x0a]), EdnErrorCode.invalidFrame, undefined, undefined],
      [c, `{:id "big" :kind :request :op "ping" :params {:s "${'x'.repeat(MAX_FRAME)}"}}\n`, EdnErrorCode.invalidFrame, undefined, undefined],
      [c, '[:not :a :map]\n', EdnErrorCode.invalidEnvelope, undefined, undefined],
      [c, '{:id "e1" :kind :response :op "ping"}\n', EdnErrorCode.invalidEnvelope, 'e1', 'ping'],
      [c, '{:id "e2" :kind :request :op "ping" :extra 1}\n', EdnErrorCode.invalidEnvelope, 'e2', 'ping'],
      [c, '{:kind :request :op "ping"}\n', EdnErrorCode.invalidEnvelope, undefined, 'ping'],
      [c, '{:id 12 :kind :request :op "ping"}\n', EdnErrorCode.invalidId, undefined, 'ping'],
      [c, '{:id "e3" :kind :request :op 5}\n', EdnErrorCode.invalidOp, 'e3', undefined],
      [c, '{:id "e4" :kind :request :op "ping" :params "x"}\n', EdnErrorCode.invalidParams, 'e4', 'ping'],
      [c, '{:id "e5" :kind :request :op "no_such_op"}\n', EdnErrorCode.opNotSupported, 'e5', 'no_such_op'],
      [fresh, '{:id "e6" :kind :request :op "ping"}\n', EdnErrorCode.notReady, 'e6', 'ping'],
      [fresh, '{:id "e7" :kind :request :op "handshake" :params {:client-info {:protocol-version "0.9" :auth-token "tok-edn-alice"}}}\n', EdnErrorCode.unsupportedVersion, 'e7', 'handshake'],
      [fresh, '{:id "e8" :kind :request :op "ping"}\n', EdnErrorCode.notReady, 'e8', 'ping'],
    ];
    for (const [client, line, code, id, op] of cases) {
      const from = client.frames.length;
      client.send(line);
      const f = await client.waitFor(() => true, 10_000, `the answer to ${String(line).slice(0, 60)}`, from);
      expectDocumentedError(f);
      expect({ code: codeOf(f), id: f.id, op: f.op }).toEqual({ code, id, op });
    }
    // A duplicate of a pending id, and the pending cap, in one write.
    const from = c.frames.length;
    c.send(`${encodeEdn(req('dup', 'ping'))}\n${encodeEdn(req('dup', 'ping'))}\n`);
    await c.waitForCount(from + 2);
    expect(c.frames.slice(from).map((f) => [kindOf(f), codeOf(f), f.id])).toEqual([['error', EdnErrorCode.invalidId, 'dup'], ['response', undefined, 'dup']]);
    const start = c.frames.length;
    c.send(Array.from({ length: MAX_PENDING + 2 }, (_, i) => `${encodeEdn(req(`cap-${i}`, 'ping'))}\n`).join(''));
    await c.waitForCount(start + MAX_PENDING + 2);
    const capped = c.frames.slice(start).filter((f) => codeOf(f) === EdnErrorCode.maxPending).map((f) => f.id);
    expect(capped).toEqual([`cap-${MAX_PENDING}`, `cap-${MAX_PENDING + 1}`]);
    // None of this took the connection down.
    expect(await c.request('ping')).toMatchObject({ ok: true });
  }, 30_000);

  test(`past ${MAX_CONNECTIONS} connections a new one gets one :error and is closed; a freed slot is reused`, async () => {
    const open: EdnTcpClient[] = [];
    for (let i = 0; i < MAX_CONNECTIONS; i++) open.push(await authed());
    const extra = await tcp();
    await extra.waitForClose(5_000);
    expect(extra.frames).toHaveLength(1);
    expectDocumentedError(extra.frames[0]!);
    expect(extra.frames[0]).toMatchObject({ 'error-code': EdnErrorCode.failed, retryable: true, data: { reason: 'max-connections' } });
    open[0]!.socket.destroy();
    await new Promise((r) => setTimeout(r, 200));
    expect(kindOf(await (await tcp()).handshake({ 'auth-token': TOKEN }))).toBe('response');
  }, 30_000);

  test('a client that stops reading is cut off as a slow consumer, with a last :error saying so', async () => {
    const c = await tcp();
    c.socket.pause();
    // Each 2-byte line costs the server a ~150-byte :error: far more than the send buffer bound.
    const lines = 100_000;
    c.send('x\n'.repeat(lines));
    // It reads again once the gateway says it cut the client off (the last frame waits a second for it).
    const deadline = Date.now() + 30_000;
    while (!stack.output.some((l) => l.includes('EDN client cut off as a slow consumer'))) {
      if (Date.now() > deadline) throw new Error('the gateway never cut the client off');
      await new Promise((r) => setTimeout(r, 20));
    }
    c.socket.resume();
    await c.waitForClose(15_000);
    expect(c.frames.length).toBeLessThan(lines);
    expect(c.frames.at(-1)).toMatchObject({ 'error-code': EdnErrorCode.failed, retryable: true, data: { reason: 'slow-consumer' } });
    // The gateway is fine.
    expect(await (await authed()).request('ping')).toMatchObject({ ok: true });
  }, 60_000);
});

describe('fuzz', () => {
  const KNOWN_OPS = new Set(['handshake', ...Object.keys(EDN_OPS)]);
  const LINES_PER_CONNECTION = 6_000;
  const BATCH = 300;
  const seed = Number(process.env.STRAND_FUZZ_SEED ?? Date.now() % 2 ** 31);

  const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string({ maxLength: 20 }),
      fc.constantFrom('request', 'response', 'id', 'op', 'params', 'handshake').map(kw),
      fc.array(tie('v'), { maxLength: 4 }),
      fc.dictionary(fc.constantFrom('id', 'kind', 'op', 'params', 'client-info', 'protocol-version', 'x'), tie('v'), { maxKeys: 4 }),
    ),
  })).v;
  const noNewline = (s: string) => s.replace(/\n/g, ' ');
  const unknownOp = fc.string({ minLength: 1, maxLength: 24 }).filter((op) => op.trim() !== '' && !KNOWN_OPS.has(op));
  const request = fc.record({ id: fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== ''), op: unknownOp, params: fc.option(fc.dictionary(fc.constantFrom('a', 'message', 'topics'), value, { maxKeys: 3 }), { nil: undefined }) })
    .map((r) => encodeEdn({ id: r.id, kind: kw('request'), op: r.op, params: r.params }));
  // Every generator yields a line (no newline) that the protocol must answer with exactly one :error.
  const malformed: fc.Arbitrary<string | Buffer> = fc.oneof(
    { arbitrary: fc.string({ unit: 'binary', maxLength: 120 }).map(noNewline), weight: 3 },
    { arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }).map((b) => Buffer.from(b.map((x) => (x === 0x0a ? 0x20 : x)))), weight: 2 },
    {
      arbitrary: fc.array(fc.constantFrom('{', '}', '[', ']', '(', ')', '#{', '#_', '#inst ', '#uuid ', '"', '\\', '\\u12', ':', '::a', ':id', ':kind', ':request', ':op', '"ping"', 'nil', '1/2', '7N', '1.5M', ';', ' ', 'sym', '1e999', '##NaN', "'", '^', '@', '~'), { maxLength: 30 }).map((a) => a.join('')),
      weight: 3,
    },
    {
      // Wrong types and shapes: any of the four keys missing, any value, an extra key; never a real op.
      arbitrary: fc.record({ id: value, kind: fc.oneof(fc.constant(kw('request')), value), op: fc.oneof(unknownOp, value), params: value, extra: value }, { requiredKeys: [] })
        .filter((m) => !(typeof m.op === 'string' && KNOWN_OPS.has(m.op)))
        .map((m) => encodeEdn(m)),
      weight: 4,
    },
    { arbitrary: request, weight: 2 },
    { arbitrary: request.chain((line) => fc.nat({ max: line.length - 1 }).map((n) => line.slice(0, n))), weight: 2 },
    { arbitrary: fc.integer({ min: 65, max: 3_000 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`), weight: 1 },
    { arbitrary: fc.integer({ min: 65, max: 500 }).map((d) => `${'{:a '.repeat(d)}1${'}'.repeat(d)}`), weight: 1 },
    { arbitrary: fc.integer({ min: 1_000, max: 8_000 }).map((n) => `[${Array.from({ length: n }, (_, i) => i).join(' ')}]`), weight: 1 },
    { arbitrary: fc.integer({ min: MAX_FRAME + 1, max: MAX_FRAME * 3 }).map((n) => `{:id "huge" :kind :request :op "ping" :params {:s "${'h'.repeat(n)}"}}`), weight: 1 },
  );

  async function blast(c: EdnTestClient, lines: (string | Buffer)[]): Promise<void> {
    const base = c.frames.length;
    const answers = () => c.frames.slice(base).filter((f) => kindOf(f) !== 'event');
    let answered = 0;
    let seen = base;
    const count = () => {
      for (; seen < c.frames.length; seen++) if (kindOf(c.frames[seen]!) !== 'event') answered++;
      return answered;
    };
    for (let i = 0; i < lines.length; i += BATCH) {
      const batch = lines.slice(i, i + BATCH);
      c.send(Buffer.concat(batch.flatMap((l) => [Buffer.isBuffer(l) ? l : Buffer.from(l, 'utf8'), Buffer.from('\n')])));
      const want = i + batch.length;
      await c.waitUntil(() => count() >= want, 30_000, `${want} answers (seed ${seed})`);
    }
    const got = answers();
    expect(got).toHaveLength(lines.length);
    for (const f of got) expectDocumentedError(f);
  }

  test(`${2 * LINES_PER_CONNECTION} generated malformed frames (seed from STRAND_FUZZ_SEED or the clock) each get a documented :error; a session prompting meanwhile completes`, async () => {
    const lines = fc.sample(malformed, { numRuns: 2 * LINES_PER_CONNECTION, seed });
    const notReady = await tcp();
    const ready = await authed();
    const healthy = await authed();

    const prompting = (async () => {
      expect(kindOf(await healthy.request('subscribe', { topics: [] }))).toBe('response');
      const answer = await healthy.request('prompt', { message: 'hello during the fuzz' });
      expect(answer).toMatchObject({ kind: kw('response'), data: { accepted: true } });
      const message = await healthy.waitFor((f) => f.event === 'assistant/message' && f.id === answer.id, 60_000, 'the answer');
      expect((message.data as EdnMap).text).toBe('You said: hello during the fuzz');
      await healthy.waitFor((f) => f.event === 'session/updated' && (f.data as EdnMap)['is-streaming'] === false, 30_000, 'idle', healthy.frames.indexOf(message));
    })();

    await Promise.all([blast(notReady, lines.slice(0, LINES_PER_CONNECTION)), blast(ready, lines.slice(LINES_PER_CONNECTION)), prompting]);
    const codes = new Set([...notReady.frames, ...ready.frames].map(codeOf));
    for (const code of [EdnErrorCode.invalidFrame, EdnErrorCode.invalidEnvelope, EdnErrorCode.notReady, EdnErrorCode.opNotSupported]) expect(codes).toContain(code);

    expect(stack.process('gateway').deathReason()).toBeUndefined();
    expect(await ready.request('ping')).toMatchObject({ ok: true });
    expect(kindOf(await (await tcp()).handshake({ 'auth-token': TOKEN }))).toBe('response');
  }, 120_000);
});
