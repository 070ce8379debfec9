import http from 'node:http';
import zlib from 'node:zlib';

/** One span as an OTLP exporter sent it, flattened. Ids are lowercase hex, as OTLP/JSON writes them. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  /** Absent for a root span. */
  parentSpanId?: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  /** The `service.name` of the resource that sent it. */
  service: string;
  attributes: Record<string, unknown>;
}

export interface OtlpCollector {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (spans arrive at `<url>/v1/traces`). */
  url: string;
  spans: CollectedSpan[];
  /** Requests refused (not OTLP JSON), with why. */
  refused: string[];
  /** Resolves with every span so far once `done` holds for them; rejects after `timeoutMs`. */
  waitFor(done: (spans: CollectedSpan[]) => boolean, timeoutMs: number): Promise<CollectedSpan[]>;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpJsonRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{ spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number; attributes?: OtlpAttribute[] }> }>;
  }>;
}

const valueOf = (v: OtlpValue): unknown => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ?? v.doubleValue ?? v.boolValue;
const attributesOf = (list: OtlpAttribute[] = []) => Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));

/** Flattens an OTLP/JSON ExportTraceServiceRequest into its spans. */
function spansOfRequest(body: OtlpJsonRequest): CollectedSpan[] {
  return (body.resourceSpans ?? []).flatMap((rs) => {
    const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        traceId: s.traceId.toLowerCase(),
        spanId: s.spanId.toLowerCase(),
        ...(s.parentSpanId ? { parentSpanId: s.parentSpanId.toLowerCase() } : {}),
        name: s.name,
        kind: s.kind ?? 0,
        service,
        attributes: attributesOf(s.attributes),
      })),
    );
  });
}

/**
 * An OTLP/HTTP trace receiver in the test process: the stack's services export to it as they would to
 * an OpenTelemetry Collector. It takes the JSON encoding (what strand's exporter sends), gzipped or not,
 * on POST /v1/traces; anything else is refused (protobuf would need a decoder this harness leaves out)
 * and recorded, so a test can tell that nothing was lost to a format it does not read.
 */
export function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const refused: string[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !type.startsWith('application/json')) {
        refused.push(`${req.method} ${req.url} ${type}`);
        res.writeHead(req.url === '/v1/traces' ? 415 : 404).end();
        return;
      }
      try {
        const raw = Buffer.concat(chunks);
        const text = (req.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw).toString('utf8');
        spans.push(...spansOfRequest(JSON.parse(text) as OtlpJsonRequest));
      } catch (err) {
        refused.push(`unreadable body: ${(err as Error).message}`);
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
      for (const wake of waiters) wake();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: `http://127.0.0.1:${port}`,
        spans,
        refused,
        waitFor(done, timeoutMs) {
          return new Promise((ok, fail) => {
            const check = () => {
              if (!done(spans)) return;
              cleanup();
              ok([...spans]);
            };
            const timer = setTimeout(() => {
              cleanup();
              fail(new Error(`the spans expected did not arrive within ${timeoutMs} ms; got: ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`));
            }, timeoutMs);
            const cleanup = () => {
              clearTimeout(timer);
              waiters.delete(check);
            };
            waiters.add(check);
            check();
          });
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
