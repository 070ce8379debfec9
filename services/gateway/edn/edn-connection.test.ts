import pino from 'pino';
import { createGatewayAuth } from '../auth/tokens';
import { encodeEdn, parseEdn } from './codec';
import { EdnConnection, framerFor } from './edn-connection';
import { kw, type EdnMap } from './edn-value';
import { EdnErrorCode, EdnOpError, type EdnOutbound, type EdnPeer, type EdnSessionHandlerFactory } from './protocol';

const silent = pino({ level: 'silent' });

/** A small real handler: ping, echo, emit (events), fail (EdnOpError), crash (any error), hold (answers when released). */
function testFactory(log: { peers: EdnPeer[]; closed: number; held: Array<() => void> }): EdnSessionHandlerFactory {
  return (out: EdnOutbound, peer: EdnPeer) => {
    log.peers.push(peer);
    return {
      handshake: async (clientInfo) => ({ serverInfo: { 'session-id': 's-1', 'client-name': (clientInfo.name as string | undefined) ?? null } }),
      request: async (req) => {
        switch (req.op) {
          case 'ping':
            return { pong: true };
          case 'echo':
            return { params: req.params };
          case 'emit':
            for (let i = 0; i < 3; i++) out.event('assistant/delta', { text: `t${i}` }, req.id);
            out.event('bad', { n: NaN });
            return { emitted: 3 };
          case 'fail':
            throw new EdnOpError(EdnErrorCode.notFound, 'no such session', { 'session-id': 'x' }, false);
          case 'crash':
            throw new Error('secret internal detail');
          case 'hold':
            return new Promise((resolve) => log.held.push(() => resolve({ released: true })));
          default:
            throw new EdnOpError(EdnErrorCode.opNotSupported, `unknown op ${req.op}`, { 'supported-ops': ['ping'] });
        }
      },
      close: () => {
        log.closed += 1;
      },
    };
  };
}

function setup(opts: { tokens?: Map<string, string>; maxPending?: number } = {}) {
  const lines: string[] = [];
  const state = { peers: [] as EdnPeer[], closed: 0, held: [] as Array<() => void>, ended: 0 };
  const conn = new EdnConnection({
    transport: { write: (l) => lines.push(l), end: () => (state.ended += 1) },
    factory: testFactory(state),
    peer: { transport: opts.tokens ? 'tcp' : 'stdio', cwd: '/tmp/project' },
    ...(opts.tokens ? { auth: createGatewayAuth(opts.tokens) } : {}),
    maxPending: opts.maxPending ?? 64,
    log: silent,
    now: () => new Date(Date.UTC(2026, 0, 1)),
  });
  const frames = () => lines.map((l) => {
    expect(l.endsWith('\n')).toBe(true);
    expect(l.slice(0, -1)).not.toContain('\n');
    return parseEdn(l) as EdnMap;
  });
  const send = async (frame: unknown) => {
    conn.receiveLine(typeof frame === 'string' ? frame : encodeEdn(frame));
    await new Promise((r) => setImmediate(r));
  };
  const req = (id: string, op: string, params?: EdnMap) => ({ id, kind: kw('request'), op, ...(params ? { params } : {}) });
  const hello = (id = 'h1', extra: EdnMap = {}) => req(id, 'handshake', { 'client-info': { name: 'test', 'protocol-version': '1.0', ...extra } });
  return { conn, lines, frames, send, req, hello, state };
}

const errorOf = (f: EdnMap) => ({ code: f['error-code'], id: f.id, op: f.op });

describe('EdnConnection envelopes', () => {
  it.each([
    ['', EdnErrorCode.invalidFrame, undefined, undefined],
    ['   ', EdnErrorCode.invalidFrame, undefined, undefined],
    ['{:id "a" :kind', EdnErrorCode.invalidFrame, undefined, undefined],
    ['#inst "2020-01-01"', EdnErrorCode.invalidFrame, undefined, undefined],
    ['[1 2]', EdnErrorCode.invalidEnvelope, undefined, undefined],
    ['"str"', EdnErrorCode.invalidEnvelope, undefined, undefined],
    ['{:id "a" :kind :response :op "ping"}', EdnErrorCode.invalidEnvelope, 'a', 'ping'],
    ['{:id "a" :kind "request" :op "ping"}', EdnErrorCode.invalidEnvelope, 'a', 'ping'],
    ['{:id "a" :op "ping"}', EdnErrorCode.invalidEnvelope, 'a', 'ping'],
    ['{:kind :request :op "ping"}', EdnErrorCode.invalidEnvelope, undefined, 'ping'],
    ['{:id "a" :kind :request}', EdnErrorCode.invalidEnvelope, 'a', undefined],
    ['{:id "a" :kind :request :op "ping" :extra 1}', EdnErrorCode.invalidEnvelope, 'a', 'ping'],
    ['{:id 7 :kind :request :op "ping"}', EdnErrorCode.invalidId, undefined, 'ping'],
    ['{:id "" :kind :request :op "ping"}', EdnErrorCode.invalidId, undefined, 'ping'],
    ['{:id "a" :kind :request :op :ping}', EdnErrorCode.invalidOp, 'a', undefined],
    ['{:id "a" :kind :request :op ""}', EdnErrorCode.invalidOp, 'a', undefined],
    ['{:id "a" :kind :request :op "ping" :params [1]}', EdnErrorCode.invalidParams, 'a', 'ping'],
    ['{:id "a" :kind :request :op "ping" :params nil}', EdnErrorCode.invalidParams, 'a', 'ping'],
  ])('%j → %s', async (line, code, id, op) => {
    const t = setup();
    await t.send(line);
    const [f] = t.frames();
    expect(f).toMatchObject({ kind: kw('error'), 'error-code': code });
    expect(errorOf(f!)).toEqual({ code, id, op });
    expect(typeof f!['error-message']).toBe('string');
    expect(Object.keys(f!).every((k) => ['kind', 'error-code', 'error-message', 'id', 'op', 'retryable', 'data'].includes(k))).toBe(true);
  });

  it('gates every op but handshake until a handshake succeeded', async () => {
    const t = setup();
    await t.send(t.req('p1', 'ping'));
    await t.send(t.req('h0', 'handshake', { 'client-info': { 'protocol-version': '2.1' } }));
    await t.send(t.req('h00', 'handshake', { 'client-info': { name: 'x' } }));
    await t.send(t.req('p2', 'ping'));
    await t.send(t.hello());
    await t.send(t.req('p3', 'ping'));
    expect(t.frames().map((f) => f['error-code'] ?? f.kind)).toEqual([
      EdnErrorCode.notReady, EdnErrorCode.unsupportedVersion, EdnErrorCode.invalidParams, EdnErrorCode.notReady, kw('response'), kw('response'),
    ]);
    expect(errorOf(t.frames()[0]!)).toEqual({ code: EdnErrorCode.notReady, id: 'p1', op: 'ping' });
    expect(t.frames()[4]).toEqual({
      kind: kw('response'), id: 'h1', op: 'handshake', ok: true,
      data: { 'server-info': { 'protocol-version': '1.0', features: [], 'session-id': 's-1', 'client-name': 'test' } },
    });
    expect(t.frames()[5]).toEqual({ kind: kw('response'), id: 'p3', op: 'ping', ok: true, data: { pong: true } });
    expect(t.state.peers).toEqual([{ transport: 'stdio', cwd: '/tmp/project' }]);
  });

  it('requests sent right behind a handshake wait for its outcome', async () => {
    const t = setup();
    t.conn.receiveLine(encodeEdn(t.req('bad', 'handshake', { 'client-info': { 'protocol-version': '3.0' } })));
    t.conn.receiveLine(encodeEdn(t.req('p1', 'ping')));
    t.conn.receiveLine(encodeEdn(t.hello('good')));
    t.conn.receiveLine(encodeEdn(t.req('p2', 'ping')));
    await new Promise((r) => setImmediate(r));
    // Answers are matched by id, not by order: each request's outcome is what counts.
    expect(Object.fromEntries(t.frames().map((f) => [f.id, f['error-code'] ?? 'ok']))).toEqual({
      bad: EdnErrorCode.unsupportedVersion, p1: EdnErrorCode.notReady, good: 'ok', p2: 'ok',
    });
  });

  it('accepts the bare {:protocol-version ...} handshake', async () => {
    const t = setup();
    await t.send(t.req('h', 'handshake', { 'protocol-version': '1.3' }));
    expect(t.frames()[0]).toMatchObject({ kind: kw('response'), id: 'h' });
  });

  it('answers op errors with their code, data and retryable; hides other errors', async () => {
    const t = setup();
    await t.send(t.hello());
    await t.send(t.req('f', 'fail'));
    await t.send(t.req('c', 'crash'));
    await t.send(t.req('u', 'nope'));
    const [, fail, crash, unknown] = t.frames();
    expect(fail).toEqual({ kind: kw('error'), 'error-code': 'request/not-found', 'error-message': 'no such session', id: 'f', op: 'fail', retryable: false, data: { 'session-id': 'x' } });
    expect(crash).toEqual({ kind: kw('error'), 'error-code': 'runtime/failed', 'error-message': 'crash failed', id: 'c', op: 'crash' });
    expect(t.lines.join('')).not.toContain('secret');
    expect(unknown).toMatchObject({ 'error-code': 'request/op-not-supported', data: { 'supported-ops': ['ping'] } });
  });

  it('stamps events with :seq 1, 2, 3 … and :ts, and drops an event it cannot encode', async () => {
    const t = setup();
    await t.send(t.hello());
    await t.send(t.req('e1', 'emit'));
    await t.send(t.req('e2', 'emit'));
    const events = t.frames().filter((f) => f.kind instanceof Object && (f.kind as { name: string }).name === 'event');
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(events[0]).toEqual({ kind: kw('event'), event: 'assistant/delta', data: { text: 't0' }, id: 'e1', seq: 1, ts: '2026-01-01T00:00:00.000Z' });
    // Responses and errors never carry :seq.
    expect(t.frames().filter((f) => (f.kind as { name: string }).name !== 'event').every((f) => !('seq' in f))).toBe(true);
  });

  it('refuses a duplicate pending id and caps pending requests', async () => {
    const t = setup({ maxPending: 3 });
    await t.send(t.hello());
    await t.send(t.req('a', 'hold'));
    await t.send(t.req('a', 'hold'));
    await t.send(t.req('b', 'hold'));
    await t.send(t.req('c', 'hold'));
    await t.send(t.req('d', 'hold'));
    expect(t.conn.pendingCount).toBe(3);
    const errors = t.frames().slice(1).map(errorOf);
    expect(errors).toEqual([
      { code: EdnErrorCode.invalidId, id: 'a', op: 'hold' },
      { code: EdnErrorCode.maxPending, id: 'd', op: 'hold' },
    ]);
    for (const release of t.state.held) release();
    await new Promise((r) => setImmediate(r));
    expect(t.conn.pendingCount).toBe(0);
    // Once answered, an id may be used again.
    await t.send(t.req('a', 'ping'));
    expect(t.frames().at(-1)).toMatchObject({ kind: kw('response'), id: 'a' });
  });

  it('drain waits for pending answers; close stops the handler and all writing', async () => {
    const t = setup();
    await t.send(t.hello());
    await t.send(t.req('x', 'hold'));
    let drained = false;
    const drain = t.conn.drain(5_000).then(() => (drained = true));
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    t.state.held[0]!();
    await drain;
    t.conn.close();
    t.conn.close();
    expect(t.state.closed).toBe(1);
    const before = t.lines.length;
    await t.send(t.req('y', 'ping'));
    expect(t.lines.length).toBe(before);
  });
});

describe('EdnConnection tokens', () => {
  const tokens = new Map([['tok-a', 'alice'], ['tok-b', 'bob']]);
  it.each([
    ['no token', {}],
    ['a wrong token', { 'auth-token': 'nope' }],
  ])('%s → transport/unauthorized, then the connection ends', async (_what, extra) => {
    const t = setup({ tokens });
    await t.send(t.hello('h1', extra as EdnMap));
    expect(errorOf(t.frames()[0]!)).toEqual({ code: EdnErrorCode.unauthorized, id: 'h1', op: 'handshake' });
    expect(t.state.ended).toBe(1);
    expect(t.state.peers).toEqual([]);
  });

  it('the right token makes the principal the peer, and never reaches the handler', async () => {
    const t = setup({ tokens });
    await t.send(t.hello('h1', { 'auth-token': 'tok-b' }));
    expect(t.frames()[0]).toMatchObject({ kind: kw('response'), id: 'h1' });
    expect(t.state.peers).toEqual([{ transport: 'tcp', cwd: '/tmp/project', principal: 'bob' }]);
    expect(t.lines.join('')).not.toContain('tok-b');
  });
});

describe('framerFor', () => {
  it('splits lines, skips the rest of an oversize line, reports binary garbage', async () => {
    const t = setup();
    const framer = framerFor(t.conn, 200);
    framer.push(Buffer.from(`${encodeEdn(t.hello())}\n${'x'.repeat(150)}`));
    framer.push(Buffer.from('y'.repeat(100)));
    framer.push(Buffer.from(`${'z'.repeat(10_000)}\n{:id "p" :kind :request`));
    framer.push(Buffer.from(' :op "ping"}\r\n'));
    framer.push(Buffer.from([0xff, 0xfe, 0x0a]));
    framer.push(Buffer.from('{:id "q" :kind :request :op "ping"}'));
    framer.end();
    await new Promise((r) => setImmediate(r));
    const frames = t.frames();
    // Frame errors are answered at once; the pipelined pings wait for the handshake, then run in order.
    expect(frames.map((f) => f['error-code'] ?? f.id)).toEqual([EdnErrorCode.invalidFrame, EdnErrorCode.invalidFrame, 'h1', 'p', 'q']);
    expect(frames[0]!['error-message']).toMatch(/longer than 200 bytes/);
    expect(frames[1]!['error-message']).toMatch(/UTF-8/);
  });
});
