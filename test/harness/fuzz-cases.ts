import fc from 'fast-check';

/**
 * Generators of malformed requests for the gateway fuzz test (test/e2e/fuzz-http-ws.test.ts). Every
 * generated request is wrong in some way a client can get wrong: bad JSON, wrong types, huge and deep
 * values, unknown routes, methods and message types, binary garbage, truncated and stalled input. None
 * is a valid write (a valid create, prompt or chat would start real work), so each must be answered
 * with a documented error, a read-only answer, or a clean close.
 */

/** One HTTP request sent with fetch. */
export interface HttpCase {
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** One exchange over a bare TCP connection: `chunks` are written `gapMs` apart; `end` half-closes after them. */
export interface RawCase {
  kind: string;
  chunks: Buffer[];
  gapMs: number;
  end: boolean;
}

const SESSION_ROUTES: Array<[string, string]> = [
  ['GET', ''],
  ['DELETE', ''],
  ['POST', '/prompt'],
  ['POST', '/steer'],
  ['POST', '/interrupt'],
  ['POST', '/resume'],
  ['POST', '/fork'],
  ['POST', '/abort-retry'],
  ['GET', '/fork-points'],
  ['GET', '/last-assistant-text'],
  ['GET', '/stats'],
  ['GET', '/messages'],
  ['GET', '/events'],
  ['POST', '/approve'],
  ['POST', '/reject'],
  ['GET', '/approvals'],
  ['POST', '/model'],
  ['POST', '/thinking'],
  ['POST', '/compact'],
  ['PATCH', '/settings'],
  ['GET', '/transcript'],
];
const FIELDS = ['text', 'project_path', 'entry_id', 'tool_call_id', 'level', 'provider', 'model_id', 'instructions', 'cycle', 'reason', 'request_id', 'config', 'images', 'context', 'approval', 'message', 'history', 'model'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

/** Any JSON value but a string: the wrong type for every string field of the API. */
const notAString = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }), fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }));
const notJson = fc.string({ maxLength: 200 }).filter((s) => {
  try {
    JSON.parse(s);
    return false;
  } catch {
    return true;
  }
});
const deepJson = fc.tuple(fc.integer({ min: 500, max: 60_000 }), fc.boolean()).map(([depth, closed]) => '['.repeat(depth) + (closed ? ']'.repeat(depth) : ''));
const hugeJson = fc.integer({ min: 100_000, max: 900_000 }).map((n) => JSON.stringify({ text: 'x'.repeat(n), request_id: 7 }));
const overLimit = fc.integer({ min: 1_100_000, max: 1_500_000 }).map((n) => `{"text":"${'y'.repeat(n)}"}`);

/** Bodies no route accepts (top-level non-objects, wrong-typed fields, unparseable, deep, huge). */
const badBody = fc.oneof(
  { weight: 4, arbitrary: notJson },
  { weight: 3, arbitrary: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.string({ maxLength: 50 }), fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 })).map((v) => JSON.stringify(v)) },
  { weight: 6, arbitrary: fc.dictionary(fc.constantFrom(...FIELDS), notAString, { minKeys: 1, maxKeys: 4 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: deepJson },
  { weight: 1, arbitrary: hugeJson },
);

const junk = fc.string({ maxLength: 30 }).map(encodeURIComponent);
const query = fc.array(fc.tuple(fc.constantFrom('limit', 'cursor', 'status', 'after', 'format', 'project', 'from_entry_id', 'queue', 'x'), junk), { maxLength: 3 }).map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));
const contentType = fc.constantFrom('application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=zz', 'application/json; charset=utf-16', '');

function withAuth(token: string) {
  return fc.oneof(
    { weight: 16, arbitrary: fc.constant(`Bearer ${token}`) },
    { weight: 2, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.constant('Bearer wrong-token') },
    { weight: 1, arbitrary: fc.stringMatching(/^(Basic|Bearer|Token) [A-Za-z0-9+/=._-]{0,40}$/) },
  );
}

function headersOf(auth: string, type: string): Record<string, string> {
  return { ...(auth ? { Authorization: auth } : {}), ...(type ? { 'Content-Type': type } : {}) };
}

/**
 * Requests over fetch. `sessionIds` are ids the fuzzing principal does not own (another principal's
 * session, unknown ids), so every session route must answer exactly as for an unknown session.
 */
export function httpCases(token: string, sessionIds: string[], count: number, seed: number): HttpCase[] {
  const sid = fc.oneof(fc.constantFrom(...sessionIds), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), fc.string({ minLength: 1, maxLength: 20 }).map(encodeURIComponent));
  const sessionRoute = fc.record({ route: fc.constantFrom(...SESSION_ROUTES), sid, query, auth: withAuth(token), type: contentType, body: badBody }).map(({ route: [method, suffix], sid, query, auth, type, body }): HttpCase => ({ kind: `session ${method} ${suffix || '/'}`, method, path: `/api/sessions/${sid}${suffix}${query}`, headers: headersOf(auth, type), ...(method === 'GET' ? {} : { body }) }));
  const createSession = fc.record({ auth: withAuth(token), type: contentType, body: fc.oneof(badBody, fc.record({ project_path: notAString, model: fc.jsonValue({ maxDepth: 1 }) }, { requiredKeys: ['project_path'] }).map((v) => JSON.stringify(v))) }).map(({ auth, type, body }): HttpCase => ({ kind: 'create session', method: 'POST', path: '/api/sessions', headers: headersOf(auth, type), body }));
  const chatStream = fc.record({ auth: withAuth(token), body: fc.oneof(badBody, fc.dictionary(fc.constantFrom('message', 'history', 'model', 'sessionId', 'workspace'), fc.jsonValue({ maxDepth: 2 })).map((v) => JSON.stringify({ ...v, __fuzz: true }))) }).map(({ auth, body }): HttpCase => ({ kind: 'chat stream', method: 'POST', path: '/v1/chat/stream', headers: headersOf(auth, 'application/json'), body }));
  const jobs = fc.record({ id: fc.stringMatching(/^[A-Za-z0-9:_-]{1,40}$/), root: fc.constantFrom('/api/jobs', '/api/turns'), action: fc.constantFrom('', '/cancel', '/report'), auth: withAuth(token) }).map(({ id, root, action, auth }): HttpCase => ({ kind: 'job', method: action === '/cancel' ? 'POST' : 'GET', path: `${root}/${id}${root === '/api/turns' && action === '/report' ? '' : action}`, headers: headersOf(auth, '') }));
  const reads = fc.record({ path: fc.constantFrom('/api/sessions', '/api/jobs', '/api/turns', '/api/transcripts', '/v1/status'), query, auth: withAuth(token) }).map(({ path, query, auth }): HttpCase => ({ kind: 'list', method: 'GET', path: `${path}${query}`, headers: headersOf(auth, '') }));
  const unknownRoute = fc.record({ method: fc.constantFrom(...METHODS), prefix: fc.constantFrom('/api/', '/v1/', '/', '/api/sessions/x/'), segs: fc.array(fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/), { minLength: 1, maxLength: 3 }), auth: withAuth(token), body: badBody }).map(({ method, prefix, segs, auth, body }): HttpCase => ({ kind: 'unknown route', method, path: `${prefix}zz${segs.join('/')}`, headers: headersOf(auth, 'application/json'), ...(method === 'GET' || method === 'HEAD' ? {} : { body }) }));
  const wrongMethod = fc.record({ method: fc.constantFrom('PUT', 'PATCH', 'OPTIONS', 'DELETE'), path: fc.constantFrom('/api/sessions', '/api/jobs', '/api/turns', '/v1/status', '/v1/chat/stream', '/healthz'), auth: withAuth(token) }).map(({ method, path, auth }): HttpCase => ({ kind: 'wrong method', method, path, headers: headersOf(auth, '') }));
  const tooLarge = fc.record({ auth: withAuth(token), body: overLimit, sid }).map(({ auth, body, sid }): HttpCase => ({ kind: 'over the body limit', method: 'POST', path: `/api/sessions/${sid}/prompt`, headers: headersOf(auth, 'application/json'), body }));
  const all = fc.oneof(
    { weight: 40, arbitrary: sessionRoute },
    { weight: 10, arbitrary: createSession },
    { weight: 8, arbitrary: chatStream },
    { weight: 6, arbitrary: jobs },
    { weight: 4, arbitrary: reads },
    { weight: 10, arbitrary: unknownRoute },
    { weight: 4, arbitrary: wrongMethod },
    { weight: 1, arbitrary: tooLarge },
  );
  return fc.sample(all, { numRuns: count, seed });
}

const bytes = (s: string) => Buffer.from(s, 'latin1');

/** Exchanges a normal client cannot make: garbage, broken framing, oversized headers, truncated and stalled input. */
export function rawCases(token: string, count: number, seed: number): RawCase[] {
  const auth = `Authorization: Bearer ${token}\r\n`;
  const garbage = fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 2_000 }), fc.boolean()).map(([b, end]): RawCase => ({ kind: 'binary garbage', chunks: [Buffer.from(b)], gapMs: 0, end }));
  const badLine = fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 40 }), fc.constantFrom('HTTP/1.1', 'HTTP/9.9', 'HTTX/1.1', '')).map(([m, p, v]): RawCase => ({ kind: 'bad request line', chunks: [bytes(`${m} ${p} ${v}\r\nHost: x\r\n\r\n`)], gapMs: 0, end: false }));
  const badHeader = fc.string({ minLength: 1, maxLength: 60 }).filter((s) => !s.includes(':')).map((h): RawCase => ({ kind: 'bad header', chunks: [bytes(`GET /api/sessions HTTP/1.1\r\nHost: x\r\n${h}\r\n\r\n`)], gapMs: 0, end: false }));
  const bigHeader = fc.integer({ min: 20_000, max: 100_000 }).map((n): RawCase => ({ kind: 'oversized headers', chunks: [bytes(`GET /api/sessions HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(n)}\r\n\r\n`)], gapMs: 0, end: false }));
  const truncated = fc.tuple(fc.integer({ min: 10, max: 5_000 }), fc.double({ min: 0, max: 0.95, noNaN: true })).map(([length, part]): RawCase => {
    const body = JSON.stringify({ text: 'z'.repeat(length) });
    return { kind: 'truncated body', chunks: [bytes(`POST /api/sessions/none/prompt HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, Math.floor(body.length * part))}`)], gapMs: 0, end: true };
  });
  const badChunked = fc.string({ maxLength: 20 }).map((c): RawCase => ({ kind: 'bad chunked body', chunks: [bytes(`POST /api/sessions HTTP/1.1\r\nHost: x\r\n${auth}Transfer-Encoding: chunked\r\n\r\nzz${c}\r\n`)], gapMs: 0, end: true }));
  const slowHeaders = fc.integer({ min: 4, max: 12 }).map((n): RawCase => ({ kind: 'slowloris headers', chunks: [bytes('GET /api/sessions HTTP/1.1\r\n'), ...Array.from({ length: n }, (_, i) => bytes(`X-Slow-${i}: a\r\n`))], gapMs: 300, end: false }));
  const slowBody = fc.integer({ min: 4, max: 12 }).map((n): RawCase => ({ kind: 'slowloris body', chunks: [bytes(`POST /api/sessions HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`), ...Array.from({ length: n }, () => bytes('"a'))], gapMs: 300, end: false }));
  const badUpgrade = fc.constantFrom('13', '8', 'x').map((v): RawCase => ({ kind: 'bad upgrade', chunks: [bytes(`GET /v1/rpc HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: ${v}\r\nSec-WebSocket-Protocol: bearer.${token}\r\n\r\n`)], gapMs: 0, end: false }));
  const all = fc.oneof(
    { weight: 6, arbitrary: garbage },
    { weight: 4, arbitrary: badLine },
    { weight: 3, arbitrary: badHeader },
    { weight: 1, arbitrary: bigHeader },
    { weight: 4, arbitrary: truncated },
    { weight: 2, arbitrary: badChunked },
    { weight: 1, arbitrary: slowHeaders },
    { weight: 1, arbitrary: slowBody },
    { weight: 1, arbitrary: badUpgrade },
  );
  return fc.sample(all, { numRuns: count, seed });
}

/** WebSocket messages: text that is not JSON or not a frame, wrong types, unknown types, deep and large values, binary. */
export function wsFrames(count: number, seed: number): Array<string | Buffer> {
  const id = fc.oneof(fc.stringMatching(/^rpc_[a-z0-9]{1,12}$/), fc.string({ maxLength: 12 }), notAString);
  const type = fc.oneof(fc.constantFrom('status.get', 'chat.start', 'chat.abort', 'task.status', 'chat.attach', 'chat.event', 'error', ''), fc.string({ maxLength: 15 }), notAString);
  const payload = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.record({ request: fc.dictionary(fc.constantFrom('message', 'history', 'model', 'sessionId'), fc.jsonValue({ maxDepth: 2 })).map((r) => ({ ...r, __fuzz: 1 })) }), fc.record({ requestId: fc.oneof(fc.stringMatching(/^rpc_[a-z0-9]{1,8}$/), notAString) }), fc.record({ taskId: fc.oneof(fc.stringMatching(/^task_[a-z0-9]{1,30}$/), notAString), afterSeq: fc.oneof(fc.integer(), notAString) }, { requiredKeys: ['taskId'] }));
  const frameLike = fc.record({ id, type, payload }, { requiredKeys: [] }).map((f) => JSON.stringify(f));
  const all = fc.oneof(
    { weight: 8, arbitrary: frameLike },
    { weight: 4, arbitrary: notJson },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    { weight: 2, arbitrary: fc.uint8Array({ minLength: 0, maxLength: 500 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 400_000 }).map((n) => JSON.stringify({ id: 'rpc_big', type: 'status.get', payload: 'p'.repeat(n) })) },
  );
  return fc.sample(all, { numRuns: count, seed });
}

/** Bytes sent after a successful WebSocket handshake: garbage and frames cut short, then the client half-closes. */
export function rawWsCases(count: number, seed: number): Buffer[] {
  const garbage = fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => Buffer.from(b));
  const truncatedFrame = fc.tuple(fc.integer({ min: 126, max: 60_000 }), fc.integer({ min: 0, max: 100 })).map(([length, sent]) => {
    // A masked text frame announcing `length` payload bytes, of which only `sent` arrive.
    const head = Buffer.from([0x81, 0x80 | 126, (length >> 8) & 0xff, length & 0xff, 1, 2, 3, 4]);
    return Buffer.concat([head, Buffer.alloc(Math.min(sent, length), 0x61)]);
  });
  const unmasked = fc.string({ maxLength: 100 }).map((s) => Buffer.concat([Buffer.from([0x81, Math.min(125, Buffer.byteLength(s))]), Buffer.from(s).subarray(0, 125)]));
  return fc.sample(fc.oneof(garbage, truncatedFrame, unmasked), { numRuns: count, seed });
}
