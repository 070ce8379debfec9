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
import { loadWorkflowBundle, workerInterceptorModules } from '../workflow-bundle';
import { recordedWorkflowId } from '../../../test/workflows/fixtures/recorded-workflow-id';

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
    .map((file) => ({ file, workflowId: recordedWorkflowId(file), history: temporal.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'))) }));

test.each([
  ['turn metrics', false],
  ['turn metrics and tracing', true],
])('every recorded history replays with the %s interceptors, counting and exporting nothing', async (_name, tracing) => {
  // The bundle a worker process starts with (its on-disk cache, rebuilt when a source changed): what runs is what replays.
  const workflowBundle = await loadWorkflowBundle(undefined, workerInterceptorModules(tracing));
  const registry = createMetricsRegistry('worker');
  const metrics = createWorkerMetrics(registry);
  const exported = new InMemorySpanExporter();
  const sinks = {
    ...turnMetricsSinks(metrics),
    ...(tracing ? { exporter: makeWorkflowExporter(new SimpleSpanProcessor(exported), new Resource({ 'service.name': 'replay' })) } : {}),
  };
  const all = histories();
  expect(all.length).toBeGreaterThan(10);
  // One at a time, each under the id it was recorded with: several histories share an id (a session
  // recorded on older code and on this one, the runs of a session continued as new).
  const results: Array<{ file: string; error?: string }> = [];
  for (const { file, workflowId, history } of all) {
    try {
      await Worker.runReplayHistory({ workflowBundle, sinks }, history, workflowId);
      results.push({ file });
    } catch (err) {
      results.push({ file, error: `${(err as Error).name}: ${(err as Error).message}` });
    }
  }
  expect(results).toEqual(all.map(({ file }) => ({ file })));
  const counted = (await registry.getMetricsAsJSON()).filter((m) => m.name.startsWith('strand_turn')).flatMap((m) => m.values.filter((v) => v.value !== 0));
  expect(counted).toEqual([]);
  expect(exported.getFinishedSpans()).toEqual([]);
}, 240_000);
