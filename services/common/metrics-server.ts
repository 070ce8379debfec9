import http from 'node:http';

export interface MetricsServer {
  /** The port bound (the one asked for, or the free one picked for 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A listener that answers `GET /metrics` with Prometheus text and nothing else: the worker's, which has
 * no HTTP server of its own (the gateway serves /metrics on its API port). Bound to `host` (loopback).
 */
export function startMetricsServer(host: string, port: number, render: () => Promise<{ contentType: string; body: string }>): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://metrics').pathname;
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    render().then(
      ({ contentType, body }) => res.writeHead(200, { 'Content-Type': contentType }).end(body),
      (err: unknown) => res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`metrics failed: ${(err as Error).message}\n`),
    );
  });
  // Scrapers keep connections open between scrapes; they must not hold a shutdown.
  server.keepAliveTimeout = 5_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
