import '../../../test/harness/quiet-temporal';
import fs from 'node:fs';
import path from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Resource } from '@opentelemetry/resources';
import { temporal } from '@temporalio/proto';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/worker';
import { Worker } from '@temporalio/worker';
import { createMetricsRegistry } from '../../common/metrics';
import { createWorkerMetrics, turnMetricsSinks } from '../worker-metrics';
import { buildWorkflowBundle, workerInterceptorModules } from '../workflow-bundle';

/**
 * The worker's workflow interceptors (turn metrics always, OpenTelemetry while tracing is on) add no
 * command and change no order: every recorded session and turn history (test/workflows/fixtures)
 * replays with them as it does without. And replaying counts nothing and exports no span: a turn
 * replayed after a cache eviction or on another worker is not measured twice.
 */
const DIR = path.join(__dirname, '../../../test/workflows/fixtures/histories');

const histories = () =>
  fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ workflowId: file, history: temporal.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'))) }));

test.each([
  ['turn metrics', false],
  ['turn metrics and tracing', true],
])('every recorded history replays with the %s interceptors, counting and exporting nothing', async (_name, tracing) => {
  const workflowBundle = await buildWorkflowBundle(workerInterceptorModules(tracing));
  const registry = createMetricsRegistry('worker');
  const metrics = createWorkerMetrics(registry);
  const exported = new InMemorySpanExporter();
  const sinks = {
    ...turnMetricsSinks(metrics),
    ...(tracing ? { exporter: makeWorkflowExporter(new SimpleSpanProcessor(exported), new Resource({ 'service.name': 'replay' })) } : {}),
  };
  const all = histories();
  expect(all.length).toBeGreaterThan(10);
  const results: Array<{ file: string; error?: string }> = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle, sinks }, all)) {
    results.push({ file: result.workflowId, ...(result.error ? { error: `${result.error.name}: ${result.error.message}` } : {}) });
  }
  expect(results).toEqual(all.map(({ workflowId }) => ({ file: workflowId })));
  const counted = (await registry.getMetricsAsJSON()).filter((m) => m.name.startsWith('strand_turn')).flatMap((m) => m.values.filter((v) => v.value !== 0));
  expect(counted).toEqual([]);
  expect(exported.getFinishedSpans()).toEqual([]);
}, 240_000);
