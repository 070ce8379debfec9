// The library's patch of the workflow isolate for OpenTelemetry (performance.now from workflow time).
import '@temporalio/interceptors-opentelemetry/lib/workflow/runtime';
import type * as otel from '@opentelemetry/api';
import { BasicTracerProvider, SimpleSpanProcessor, type IdGenerator } from '@opentelemetry/sdk-trace-base';
import { ContextManager } from '@temporalio/interceptors-opentelemetry/lib/workflow/context-manager';
import { SpanExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/span-exporter';
import * as wf from '@temporalio/workflow';

/**
 * The tracer workflow code makes its spans with. Like @temporalio/interceptors-opentelemetry's own (a
 * provider in the isolate whose finished spans leave through the worker's `exporter` sink), with one
 * difference that replay needs: span and trace ids do not come from `Math.random`. In a workflow that
 * is the run's seeded random sequence, which `uuid4()` also draws from; a span drawing from it moves
 * every later uuid of the run, so a history recorded without tracing would not replay with it (a turn
 * waits for an acknowledgement whose id changed) and turning tracing on or off would break the
 * workflows running at that moment. Ids here are a hash of the run id and a count of the run's spans
 * instead: just as deterministic (a replayed span gets the id it had), drawing nothing from the run.
 */
class RunScopedIds implements IdGenerator {
  private readonly counts = new Map<string, number>();

  generateTraceId(): string {
    return this.next(32);
  }

  generateSpanId(): string {
    return this.next(16);
  }

  /** The run left this worker's cache: a replay starts counting again, and gets the same ids. */
  forget(runId: string): void {
    this.counts.delete(runId);
  }

  private next(hexDigits: number): string {
    const runId = wf.workflowInfo().runId;
    const n = (this.counts.get(runId) ?? 0) + 1;
    this.counts.set(runId, n);
    let id = '';
    for (let part = 0; id.length < hexDigits; part++) id += fnv1a(`${runId}/${n}/${part}`).toString(16).padStart(8, '0');
    // An all-zero id is invalid in OpenTelemetry; a hash of zero for every part will not happen, but never send one.
    return /^0+$/.test(id) ? `1${id.slice(1, hexDigits)}` : id.slice(0, hexDigits);
  }
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

let state: { tracer: otel.Tracer; ids: RunScopedIds; contextManager: ContextManager } | undefined;

/** The isolate's tracer, registered as its global provider (with the context manager and the W3C propagator) on first use. */
export function workflowTracing(): { tracer: otel.Tracer; ids: RunScopedIds; contextManager: ContextManager } {
  if (!state) {
    const ids = new RunScopedIds();
    const contextManager = new ContextManager();
    const provider = new BasicTracerProvider({ idGenerator: ids });
    provider.addSpanProcessor(new SimpleSpanProcessor(new SpanExporter()));
    provider.register({ contextManager });
    state = { tracer: provider.getTracer('@temporalio/interceptor-workflow'), ids, contextManager };
  }
  return state;
}
