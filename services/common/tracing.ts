import os from 'node:os';
import { trace, type Tracer } from '@opentelemetry/api';
import type * as ContextAsyncHooks from '@opentelemetry/context-async-hooks';
import type * as OtelCore from '@opentelemetry/core';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as Resources from '@opentelemetry/resources';
import type { Resource } from '@opentelemetry/resources';
import type * as SdkTraceBase from '@opentelemetry/sdk-trace-base';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/**
 * OpenTelemetry tracing of one process, off unless an OTLP endpoint is configured with the standard
 * variables (docs/observability.md). When on, spans go in batches as OTLP JSON over HTTP to the
 * endpoint, the W3C `traceparent` carries a trace between processes (and through Temporal's headers),
 * and async work keeps its span context (AsyncLocalStorage).
 */
export interface Tracing {
  readonly enabled: boolean;
  /** The process's tracer (a no-op one when tracing is off). */
  readonly tracer: Tracer;
  /** Where finished spans go (the worker hands it to the workflows' span sink); absent when off. */
  readonly spanProcessor?: SpanProcessor;
  readonly resource?: Resource;
  /** Sends what is batched and stops. */
  shutdown(): Promise<void>;
}

/** The OTLP/HTTP traces URL the standard variables name, or undefined: tracing stays off. */
export function otlpTracesUrl(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  // The signal-neutral endpoint is a base URL: the traces path is appended (OTLP exporter specification).
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

const TRACER_NAME = 'strand';

/** Starts tracing for `service` when the environment names an endpoint; registers it as the process's global provider. */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): Tracing {
  const url = otlpTracesUrl(env);
  if (!url) return { enabled: false, tracer: trace.getTracer(TRACER_NAME), shutdown: async () => undefined };
  // The SDK and its exporter are required only when tracing is on: off (the default), they were a
  // tenth of a gateway's or a worker's start (bench:startup).
  /* eslint-disable @typescript-eslint/no-require-imports -- deliberately lazy (see above) */
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks') as typeof ContextAsyncHooks;
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof OtelCore;
  const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const { Resource } = require('@opentelemetry/resources') as typeof Resources;
  const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base') as typeof SdkTraceBase;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const resource = new Resource({
    'service.name': env.OTEL_SERVICE_NAME?.trim() || `strand-${service}`,
    'service.namespace': 'strand',
    'service.instance.id': `${os.hostname()}:${process.pid}`,
  });
  // Batched (OTEL_BSP_SCHEDULE_DELAY and the other OTEL_BSP_* tune it): a span costs the request that made it a queue push.
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url }));
  const provider = new BasicTracerProvider({ resource });
  provider.addSpanProcessor(spanProcessor);
  provider.register({ contextManager: new AsyncLocalStorageContextManager().enable(), propagator: new W3CTraceContextPropagator() });
  return {
    enabled: true,
    tracer: trace.getTracer(TRACER_NAME),
    spanProcessor,
    resource,
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}
