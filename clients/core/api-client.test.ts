import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient, ApiError, ApiUnreachable } from './api-client';

/**
 * The clients' one API client against a real local HTTP server: what it sends (token, JSON), what it
 * returns, and the one error shape for every way a call can fail.
 */

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  contentType?: string;
  body: string;
}

async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** What a call threw (it must throw). */
async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    return err as ApiError;
  }
  throw new Error('the call succeeded');
}

test('JSON in and out, with the token read at every request (none: no Authorization header)', async () => {
  const server = await serve((req, res, body) => json(res, req.method === 'POST' ? 201 : 200, { echoed: body ? JSON.parse(body) : null, path: req.url }));
  let token: string | undefined = 'tok-1';
  const client = new ApiClient({ baseUrl: server.url, token: () => token });
  try {
    expect(await client.call('POST', '/api/sessions', { project_path: '/p' })).toEqual({ echoed: { project_path: '/p' }, path: '/api/sessions' });
    token = undefined;
    expect(await client.call('GET', '/api/sessions/s%201')).toEqual({ echoed: null, path: '/api/sessions/s%201' });
    expect(server.seen).toEqual([
      { method: 'POST', url: '/api/sessions', authorization: 'Bearer tok-1', contentType: 'application/json', body: '{"project_path":"/p"}' },
      { method: 'GET', url: '/api/sessions/s%201', authorization: undefined, contentType: undefined, body: '' },
    ]);
    expect(client.url('/api/sessions/s1/events')).toBe(`${server.url}/api/sessions/s1/events`);
    expect(client.headers({ Accept: 'text/event-stream' })).toEqual({ Accept: 'text/event-stream' });
  } finally {
    await server.close();
  }
});

test("an error answer is an ApiError with the gateway's status, code, message and details", async () => {
  const server = await serve((_req, res) => json(res, 409, { error: { code: 'REVERT_CONFLICT', message: 'files changed since', details: { paths: ['a.txt'] } } }));
  try {
    const err = await failure(new ApiClient({ baseUrl: server.url }).call('POST', '/api/sessions/s1/revert', { turn_id: 't1' }));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).not.toBeInstanceOf(ApiUnreachable);
    expect([err.name, err.status, err.code, err.message, err.details]).toEqual(['ApiError', 409, 'REVERT_CONFLICT', 'files changed since', { paths: ['a.txt'] }]);
  } finally {
    await server.close();
  }
});

test('an error answer without an error body (a proxy page) is HTTP_<status> with its text; a success without JSON is INVALID_REPLY', async () => {
  const server = await serve((req, res) => {
    res.writeHead(req.url === '/bad-gateway' ? 502 : 200, { 'Content-Type': 'text/html' });
    res.end('<html>upstream down</html>');
  });
  const client = new ApiClient({ baseUrl: server.url });
  try {
    const proxied = await failure(client.call('GET', '/bad-gateway'));
    expect([proxied.status, proxied.code, proxied.message, proxied.details]).toEqual([502, 'HTTP_502', '<html>upstream down</html>', undefined]);
    const garbled = await failure(client.call('GET', '/ok'));
    expect([garbled.status, garbled.code]).toEqual([200, 'INVALID_REPLY']);
    expect(garbled.message).toContain('upstream down');
    // The same body asked for as text is a success.
    expect(await client.text('/ok')).toBe('<html>upstream down</html>');
  } finally {
    await server.close();
  }
});

test('a text reply (a transcript) is returned as sent; its error answer is the same ApiError; an empty JSON reply is {}', async () => {
  const server = await serve((req, res) => {
    if (req.url === '/md') {
      res.writeHead(200, { 'Content-Type': 'text/markdown' });
      return void res.end('# Session\n\nhello\n');
    }
    if (req.url === '/empty') {
      res.writeHead(204);
      return void res.end();
    }
    json(res, 404, { error: { code: 'SESSION_NOT_FOUND', message: 'no session s9' } });
  });
  const client = new ApiClient({ baseUrl: server.url });
  try {
    expect(await client.text('/md')).toBe('# Session\n\nhello\n');
    expect(await client.call('DELETE', '/empty')).toEqual({});
    const err = await failure(client.text('/missing'));
    expect([err.status, err.code, err.message]).toEqual([404, 'SESSION_NOT_FOUND', 'no session s9']);
  } finally {
    await server.close();
  }
});

test('a 401 is reported (so a page asks for a token) before it is thrown; other failures are not', async () => {
  const server = await serve((req, res) => (req.url === '/mine' ? json(res, 401, { error: { code: 'UNAUTHORIZED', message: 'a token is needed' } }) : json(res, 403, { error: { code: 'FORBIDDEN', message: 'not yours' } })));
  const told: string[] = [];
  const client = new ApiClient({ baseUrl: server.url, onUnauthorized: () => told.push('401') });
  try {
    const forbidden = await failure(client.call('GET', '/theirs'));
    expect(told).toEqual([]);
    const unauthorized = await failure(client.call('GET', '/mine'));
    expect(told).toEqual(['401']);
    expect([forbidden.status, forbidden.code, unauthorized.status, unauthorized.code]).toEqual([403, 'FORBIDDEN', 401, 'UNAUTHORIZED']);
  } finally {
    await server.close();
  }
});

test('a gateway that is not there is ApiUnreachable: status 0, code UNREACHABLE, the address, the cause and the hint', async () => {
  // A port that was free a moment ago and has nothing listening now.
  const server = await serve(() => undefined);
  const { url } = server;
  await server.close();
  const err = await failure(new ApiClient({ baseUrl: url, unreachableHint: 'is the stack running?' }).call('GET', '/v1/status'));
  expect(err).toBeInstanceOf(ApiUnreachable);
  expect(err).toBeInstanceOf(ApiError);
  expect([err.name, err.status, err.code]).toEqual(['ApiUnreachable', 0, 'UNREACHABLE']);
  expect(err.message).toBe(`the gateway at ${url} did not answer (ECONNREFUSED); is the stack running?`);
});

test("a gateway that takes the request and never answers is ApiUnreachable once the call's deadline passes", async () => {
  const server = await serve(() => undefined);
  const client = new ApiClient({ baseUrl: server.url, timeoutMs: 60_000 });
  try {
    // The call's own deadline wins over the client's.
    const err = await failure(client.call('POST', '/api/sessions/s1/interrupt', {}, { timeoutMs: 300 }));
    expect(err).toBeInstanceOf(ApiUnreachable);
    expect(err.message).toBe(`the gateway at ${server.url} did not answer (no answer in time)`);
    expect(server.seen.map((s) => s.url)).toEqual(['/api/sessions/s1/interrupt']);
  } finally {
    await server.close();
  }
});
