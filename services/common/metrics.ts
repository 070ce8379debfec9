import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics of one process (docs/observability.md). Each process keeps its own registry and
 * counts only what happens in it; Prometheus labels every series with the scraped `instance`, and sums
 * across instances give the cluster's figures. Every series here also carries `service`.
 */
export type MetricsRegistry = Registry;

/** A registry for `service` with Node's own process metrics (CPU, memory, event-loop delay, GC). */
export function createMetricsRegistry(service: string): MetricsRegistry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Seconds buckets for waits a person notices: a first delta, a model step, a request. */
export const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds buckets for whole turns (a turn with tools and approvals can take many minutes). */
export const TURN_BUCKETS = [0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800];
/** Seconds buckets for tool runs (a file read takes milliseconds, a build minutes). */
export const TOOL_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300];

/** The exposition of `registry`, followed by `extra` text of the same format (the Temporal SDK's own metrics). */
export async function metricsText(registry: MetricsRegistry, extra?: () => Promise<string>): Promise<{ contentType: string; body: string }> {
  const own = await registry.metrics();
  const more = extra ? await extra().catch(() => '') : '';
  return { contentType: registry.contentType, body: more ? `${own}\n${more.trimEnd()}\n` : own };
}
