import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createGatewayAuth } from '../../auth/tokens';
import { createHttpApp, type HttpDeps } from '../app';

/**
 * The document's `servers` is per request (issue 22: Swagger UI showed 127.0.0.1:9420 whatever the
 * port): the address the request came in on, or the configured public URL; the ETag follows it, so a
 * cache never answers one address with another's document. Real routes on a real server, random port.
 */
const servers: ServerType[] = [];
async function start(opts: { publicUrl?: string }): Promise<string> {
  const server = await new Promise<ServerType>((resolve) => {
    // The app with fakes: serving the document calls none of them.
    const deps = { maxBodyBytes: 1024, auth: createGatewayAuth(new Map()), rateLimit: { perSecond: 1000, burst: 1000 }, keepaliveMs: 15_000, ...opts } as unknown as HttpDeps;
    const s = serve({ fetch: createHttpApp(deps).fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterAll(() => servers.forEach((s) => s.close()));

const get = (url: string, headers: Record<string, string> = {}) => fetch(`${url}/api/openapi.json`, { headers });

test('without a public URL the server is the origin the client used, and the ETag is per server', async () => {
  const base = await start({});
  const res = await get(base);
  const doc = (await res.json()) as { servers: unknown; openapi: string; paths: object };
  expect(doc.servers).toEqual([{ url: base }]);
  expect(doc.openapi).toBe('3.1.0');
  expect(Object.keys(doc.paths).length).toBeGreaterThan(10);
  const etag = res.headers.get('etag')!;
  expect((await get(base, { 'If-None-Match': etag })).status).toBe(304);

  const other = await start({});
  const elsewhere = await get(other);
  expect(((await elsewhere.json()) as { servers: unknown }).servers).toEqual([{ url: other }]);
  expect(elsewhere.headers.get('etag')).not.toBe(etag);
  expect((await get(other, { 'If-None-Match': etag })).status).toBe(200);
});

test('a configured public URL is the server, whatever address the request used', async () => {
  const base = await start({ publicUrl: 'https://strand.example.org/agent' });
  expect(((await (await get(base)).json()) as { servers: unknown }).servers).toEqual([{ url: 'https://strand.example.org/agent' }]);
});
