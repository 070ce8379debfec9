import '../harness/quiet-temporal';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { buildWorkflowBundle } from '../../services/worker/workflow-bundle';
import { startOtlpCollector, type CollectedSpan, type OtlpCollector } from '../harness/otlp-collector';
import { openSse, readUntil } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * OpenTelemetry traces from a real stack to an OTLP collector in this process (docs/observability.md):
 * one prompt with a tool call is one trace, from the gateway's HTTP command through the session's
 * prompt update and the turn workflow to the model step and the tool, each span the child of the one
 * before (by span ids, not just one trace id). The histories that turn wrote replay without tracing.
 */
let collector: OtlpCollector;
let stack: TestStack;
let project: string;
let traced: { session: string } | undefined;

beforeAll(async () => {
  collector = await startOtlpCollector();
  // A short batch delay: spans reach the collector within moments of ending.
  stack = await startTestStack({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_BSP_SCHEDULE_DELAY: '100', STRAND_SCRIPTED_DELTA_DELAY_MS: '5' });
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-tracing-'));
  fs.writeFileSync(path.join(project, 'README.md'), 'traced readme\n');
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  await collector?.close();
  fs.rmSync(project, { recursive: true, force: true });
}, 60_000);

/** Sends one prompt that reads a file and answers, and returns its request id once the turn has finished. */
async function promptWithTool(session: string): Promise<string> {
  const base = stack.urls.gateway;
  const sse = await openSse(`${base}/api/sessions/${session}/events`);
  const accepted = await http(base, 'POST', `/api/sessions/${session}/prompt`, { text: 'read the readme' });
  expect(accepted.status).toBe(202);
  const events = await readUntil(sse, (e) => e.event === 'turn.finished');
  sse.close();
  expect(JSON.parse(events[events.length - 1]!.data)).toMatchObject({ outcome: 'done' });
  return accepted.headers.get('x-request-id')!;
}

/**
 * The prompt's trace, link by link (each a parent/child pair by span id): the HTTP command, the
 * gateway's Temporal call and the session's handling of it (named by the caller), the turn's start,
 * the turn, its two model steps and its tool.
 */
async function expectOneTrace(session: string, requestId: string, call: string, handle: string): Promise<void> {
  // The turn's workflow span ends with the turn: once it is in, with both activities, the trace is complete.
  const inTrace = (all: CollectedSpan[]) => {
    const command = all.find((s) => s.attributes['strand.request_id'] === requestId);
    return command ? all.filter((s) => s.traceId === command.traceId) : [];
  };
  const named = (spans: CollectedSpan[], name: string) => spans.filter((s) => s.name === name);
  const spans = inTrace(
    await collector.waitFor((all) => {
      const trace = inTrace(all);
      return ['RunWorkflow:turnWorkflow', 'RunActivity:runTool'].every((n) => named(trace, n).length > 0) && named(trace, 'RunActivity:streamModelStep').length >= 2;
    }, 30_000),
  );
  expect(collector.refused).toEqual([]);

  const one = (name: string, where: (s: CollectedSpan) => boolean = () => true) => {
    const found = spans.filter((s) => s.name === name && where(s));
    expect({ name, count: found.length }).toEqual({ name, count: 1 });
    return found[0]!;
  };
  const command = one('POST /api/sessions/:id/prompt', (s) => s.attributes['strand.request_id'] === requestId);
  const childOf = (parent: CollectedSpan, name: string) => one(name, (s) => s.parentSpanId === parent.spanId);

  const update = childOf(command, call);
  const handled = childOf(update, handle);
  const start = childOf(handled, 'StartChildWorkflow:turnWorkflow');
  const turn = childOf(start, 'RunWorkflow:turnWorkflow');
  const steps = spans.filter((s) => s.name === 'StartActivity:streamModelStep' && s.parentSpanId === turn.spanId);
  expect(steps.length).toBe(2);
  const modelSteps = steps.map((step) => childOf(step, 'RunActivity:streamModelStep'));
  const tool = childOf(childOf(turn, 'StartActivity:runTool'), 'RunActivity:runTool');

  // Each part where it runs.
  const chain = [command, update, handled, start, turn, ...steps, ...modelSteps, tool];
  expect(command.parentSpanId).toBeUndefined();
  expect(chain.map((s) => s.service)).toEqual(['strand-gateway', 'strand-gateway', ...Array(chain.length - 2).fill('strand-worker')]);
  expect(command.attributes).toMatchObject({ 'http.route': '/api/sessions/:id/prompt', 'http.response.status_code': 202, 'strand.session_id': session });
}

test('one prompt with a tool call is one trace: gateway → prompt update → turn workflow → model step and tool', async () => {
  expect(stack.output.some((l) => /\[worker\] ready .*tracing=on/.test(l))).toBe(true);
  const session = (await http(stack.urls.gateway, 'POST', '/api/sessions', { project_path: project, model: 'scripted/read-then-answer' })).body.session_id as string;
  const requestId = await promptWithTool(session);
  // The session's run was started when it was created, so the prompt goes to it as checkedPrompt (no store read first).
  await expectOneTrace(session, requestId, 'StartWorkflowUpdate:checkedPrompt', 'HandleUpdate:checkedPrompt');
  traced = { session };
}, 90_000);

test('a prompt to a session without a running workflow (read from the store, then update-with-start) is one trace too', async () => {
  const session = (await http(stack.urls.gateway, 'POST', '/api/sessions', { project_path: project, model: 'scripted/read-then-answer' })).body.session_id as string;
  const connection = await Connection.connect({ address: stack.urls.temporal });
  try {
    await new Client({ connection }).workflow.getHandle(`session:${session}`).terminate('the test ends the run, as an idle timeout would');
  } finally {
    await connection.close();
  }
  const requestId = await promptWithTool(session);
  await expectOneTrace(session, requestId, 'UpdateWithStartWorkflow:prompt', 'HandleUpdate:prompt');
}, 90_000);

test('the session and turn histories written with tracing on replay on workflow code without it (tracing can be switched off while they run)', async () => {
  expect(traced).toBeDefined();
  const connection = await Connection.connect({ address: stack.urls.temporal });
  try {
    const client = new Client({ connection });
    const ids = [`session:${traced!.session}`, `session:${traced!.session}:turn:1`];
    const histories = await Promise.all(ids.map(async (workflowId) => ({ workflowId, history: await client.workflow.getHandle(workflowId).fetchHistory() })));
    const results: Array<{ workflowId: string; error?: string }> = [];
    for await (const r of Worker.runReplayHistories({ workflowBundle: await buildWorkflowBundle() }, histories)) {
      results.push({ workflowId: r.workflowId, ...(r.error ? { error: `${r.error.name}: ${r.error.message}` } : {}) });
    }
    expect(results).toEqual(ids.map((workflowId) => ({ workflowId })));
  } finally {
    await connection.close();
  }
}, 180_000);
