import type { ActivityInterceptorsFactory, WorkerOptions } from '@temporalio/worker';
import { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor, makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { AgentEventPublisher } from '../../activities/events/publisher';
import type { Tracing } from '../common/tracing';
import { activityTelemetry } from './activity-telemetry';
import { observedPublisher } from './observed-publisher';
import type { RecentFailures } from './recent-failures';
import { turnMetricsSinks, type WorkerMetrics } from './worker-metrics';

export interface WorkerTelemetry {
  metrics: WorkerMetrics;
  tracing?: Tracing;
  /** Where the event publisher records the `error` events it stores (the telemetry snapshots carry them). */
  failures?: RecentFailures;
}

/**
 * How metrics and traces attach to a worker (docs/observability.md), all at its edges: the activity
 * interceptors (OpenTelemetry's span first, so what is measured and logged inside runs in it), the
 * sinks the bundled workflow interceptors report to, and the event publisher the activities use.
 */
export function workerTelemetry({ metrics, tracing, failures }: WorkerTelemetry): {
  activityInterceptors: ActivityInterceptorsFactory[];
  sinks: NonNullable<WorkerOptions['sinks']>;
  publisher(events: AgentEventPublisher): AgentEventPublisher;
} {
  const traced = tracing?.enabled && tracing.spanProcessor && tracing.resource ? { processor: tracing.spanProcessor, resource: tracing.resource, tracer: tracing.tracer } : undefined;
  const otelActivities: ActivityInterceptorsFactory | undefined = traced
    ? (ctx) => ({
        inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: traced.tracer }),
        outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
      })
    : undefined;
  return {
    activityInterceptors: [...(otelActivities ? [otelActivities] : []), activityTelemetry(metrics)],
    sinks: {
      ...turnMetricsSinks(metrics),
      // Workflow spans are made inside the workflow sandbox and leave it through this sink.
      ...(traced ? { exporter: makeWorkflowExporter(traced.processor, traced.resource) } : {}),
    },
    publisher: (events) => observedPublisher(events, metrics, Date.now, failures),
  };
}
