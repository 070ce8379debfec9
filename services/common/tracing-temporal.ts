import type { ClientInterceptors } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import { otlpTracesUrl } from './tracing';

/**
 * The Temporal client interceptors of a process that traces: each start, update, signal and query
 * gets a span, and its context goes to the workflow in Temporal's headers (the worker's workflow
 * interceptors continue the trace). None when tracing is off, so an untraced client pays nothing.
 * The spans go to the process's global tracer provider (tracing.ts).
 */
export function tracingClientInterceptors(env: NodeJS.ProcessEnv = process.env): ClientInterceptors | undefined {
  return otlpTracesUrl(env) ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}
