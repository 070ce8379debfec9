import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openSse, readUntil, type SseConnection } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { connectRpc } from '../harness/ws-rpc-client';

/**
 * /metrics on the gateway and on a worker, scraped and parsed as Prometheus reads them, around real
 * turns over HTTP: the figures move exactly as the turns imply (docs/observability.md).
 */
let stack: TestStack;
let base: string;
let workerMetricsUrl: string;
let project: string;

beforeAll(async () => {
  stack = await startTestStack({ STRAND_SCRIPTED_DELTA_DELAY_MS: '5' });
  base = stack.urls.gateway;
  const ready = stack.output.find((l) => /\[worker\] ready .*metrics=/.test(l));
  workerMetricsUrl = /metrics=(http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(ready ?? '')?.[1] ?? '';
  project = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-metrics-'));
  fs.writeFileSync(path.join(project, 'README.md'), 'hello world\n');
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
  fs.rmSync(project, { recursive: true, force: true });
}, 60_000);

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Prometheus text format 0.0.4: every line a comment, blank, or one sample (a line that is none of these fails). */
function parsePrometheus(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = SAMPLE.exec(line);
      if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
      const labels = Object.fromEntries([...(m[2] ?? '').matchAll(LABEL)].map((l) => [l[1]!, l[2]!]));
      return { name: m[1]!, labels, value: Number(m[3]) };
    });
}

async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return parsePrometheus(await res.text());
}

/** The sum of the samples named `name` whose labels include `labels` (0 when there are none). */
function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((sum, s) => sum + s.value, 0);
}

/** Scrapes until `done` holds (metrics reported after an event a client saw may land moments later). */
async function scrapeUntil(url: string, done: (s: Sample[]) => boolean, timeoutMs = 20_000): Promise<Sample[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const samples = await scrape(url);
    if (done(samples) || Date.now() > deadline) return samples;
    await new Promise((r) => setTimeout(r, 200));
  }
}

const connections = (s: Sample[], protocol: string) => total(s, 'strand_gateway_connections', { protocol });
const isFinished = (e: { event: string }) => e.event === 'turn.finished';

async function newSession(model: string): Promise<string> {
  const res = await http(base, 'POST', '/api/sessions', { project_path: project, model });
  expect(res.status).toBe(201);
  return res.body.session_id;
}

test('the worker announces its metrics listener in its ready line', () => {
  expect(workerMetricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
});

test('a turn with a tool call over HTTP: turns, first delta, model steps and the tool counted on the worker; requests and connections on the gateway', async () => {
  const session = await newSession('scripted/read-then-answer');
  const [gateway0, worker0] = await Promise.all([scrape(`${base}/metrics`), scrape(workerMetricsUrl)]);

  // One client per protocol, open while the turn runs.
  const sse: SseConnection = await openSse(`${base}/api/sessions/${session}/events`);
  const ws = await connectRpc(`${base.replace('http', 'ws')}/v1/rpc`);
  const edn = await new Promise<net.Socket>((resolve, reject) => {
    const [host, port] = stack.urls.edn.split(':');
    const socket = net.connect(Number(port), host!, () => resolve(socket)).once('error', reject);
  });
  const during = await scrapeUntil(`${base}/metrics`, (s) => connections(s, 'edn') === connections(gateway0, 'edn') + 1);
  expect(['sse', 'websocket', 'edn', 'chat_stream'].map((p) => connections(during, p) - connections(gateway0, p))).toEqual([1, 1, 1, 0]);
  expect(total(during, 'strand_gateway_live_sessions')).toBeGreaterThanOrEqual(1);

  const accepted = await http(base, 'POST', `/api/sessions/${session}/prompt`, { text: 'read the readme' });
  expect(accepted.status).toBe(202);
  expect(accepted.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  const events = await readUntil(sse, isFinished);
  expect(JSON.parse(events[events.length - 1]!.data)).toMatchObject({ outcome: 'done' });
  expect(events.filter((e) => e.event === 'tool.call').map((e) => JSON.parse(e.data).tool)).toEqual(['read_file']);

  const worker1 = await scrapeUntil(workerMetricsUrl, (s) => total(s, 'strand_turns_finished_total') > total(worker0, 'strand_turns_finished_total'));
  const moved = (name: string, labels: Record<string, string> = {}) => total(worker1, name, labels) - total(worker0, name, labels);
  expect({
    started: moved('strand_turns_started_total'),
    done: moved('strand_turns_finished_total', { outcome: 'done' }),
    error: moved('strand_turns_finished_total', { outcome: 'error' }),
    durations: moved('strand_turn_duration_seconds_count', { outcome: 'done' }),
    firstDeltas: moved('strand_turn_first_delta_seconds_count'),
    steps: moved('strand_model_step_duration_seconds_count', { provider: 'scripted', outcome: 'ok' }),
    firstOutputs: moved('strand_model_step_first_output_seconds_count', { provider: 'scripted' }),
    readFile: moved('strand_tool_duration_seconds_count', { tool: 'read_file', outcome: 'ok' }),
    otherTools: moved('strand_tool_duration_seconds_count') - moved('strand_tool_duration_seconds_count', { tool: 'read_file' }),
    providerErrors: moved('strand_provider_errors_total'),
    retries: moved('strand_retries_total'),
  }).toEqual({ started: 1, done: 1, error: 0, durations: 1, firstDeltas: 1, steps: 2, firstOutputs: 2, readFile: 1, otherTools: 0, providerErrors: 0, retries: 0 });
  // The first delta came before the turn ended; both took some time.
  expect(moved('strand_turn_first_delta_seconds_sum')).toBeGreaterThan(0);
  expect(moved('strand_turn_duration_seconds_sum', { outcome: 'done' })).toBeGreaterThan(moved('strand_turn_first_delta_seconds_sum'));
  // The Temporal SDK's own worker metrics are on the same page: the turn's tool activity ran here.
  expect(total(worker1, 'temporal_activity_execution_latency_seconds_count', { activity_type: 'runTool', workflow_type: 'turnWorkflow' })).toBeGreaterThanOrEqual(1);
  expect(worker1.every((s) => s.labels.service === 'worker' || s.name.startsWith('temporal_'))).toBe(true);

  const gateway1 = await scrape(`${base}/metrics`);
  expect(total(gateway1, 'strand_http_requests_total', { method: 'POST', route: '/api/sessions/:id/prompt', status: '202' }) - total(gateway0, 'strand_http_requests_total', { route: '/api/sessions/:id/prompt' })).toBe(1);
  expect(gateway1.filter((s) => s.name === 'strand_gateway_event_lag').map((s) => s.value >= 0)).toEqual([true]);

  // The clients leave: every gauge goes back to what it was.
  sse.close();
  ws.close();
  edn.destroy();
  const after = await scrapeUntil(`${base}/metrics`, (s) => ['sse', 'websocket', 'edn'].every((p) => connections(s, p) === connections(gateway0, p)));
  expect(['sse', 'websocket', 'edn', 'chat_stream'].map((p) => connections(after, p))).toEqual(['sse', 'websocket', 'edn', 'chat_stream'].map((p) => connections(gateway0, p)));
}, 90_000);

test('a tool call waiting for approval: the turn shows as waiting_approval on the gateway, the worker counts the request and the answer', async () => {
  const session = await newSession('scripted/edit-file');
  const worker0 = await scrape(workerMetricsUrl);
  const sse = await openSse(`${base}/api/sessions/${session}/events`);
  try {
    expect((await http(base, 'POST', `/api/sessions/${session}/prompt`, { text: 'edit the readme' })).status).toBe(202);
    const call = (await readUntil(sse, (e) => e.event === 'tool.call')).pop()!;
    expect(JSON.parse(call.data)).toMatchObject({ tool: 'edit_file', requires_approval: true });

    // Temporal's visibility (what the gauge reads) follows the turn within moments.
    const waiting = await scrapeUntil(`${base}/metrics`, (s) => total(s, 'strand_turns_running', { phase: 'waiting_approval' }) === 1);
    expect(total(waiting, 'strand_turns_running', { phase: 'waiting_approval' })).toBe(1);
    const asked = await scrapeUntil(workerMetricsUrl, (s) => total(s, 'strand_approvals_requested_total') > total(worker0, 'strand_approvals_requested_total'));
    expect(total(asked, 'strand_approvals_requested_total') - total(worker0, 'strand_approvals_requested_total')).toBe(1);

    const approved = await http(base, 'POST', `/api/sessions/${session}/approve`, { tool_call_id: JSON.parse(call.data).tool_call_id });
    expect(approved.status).toBe(200);
    const end = (await readUntil(sse, isFinished)).pop()!;
    expect(JSON.parse(end.data)).toMatchObject({ outcome: 'done' });

    const worker1 = await scrapeUntil(workerMetricsUrl, (s) => total(s, 'strand_turns_finished_total') > total(worker0, 'strand_turns_finished_total'));
    expect(total(worker1, 'strand_approvals_resolved_total', { decision: 'approved' }) - total(worker0, 'strand_approvals_resolved_total', { decision: 'approved' })).toBe(1);
    expect(total(worker1, 'strand_tool_duration_seconds_count', { tool: 'edit_file', outcome: 'ok' }) - total(worker0, 'strand_tool_duration_seconds_count', { tool: 'edit_file', outcome: 'ok' })).toBe(1);
    const idle = await scrapeUntil(`${base}/metrics`, (s) => total(s, 'strand_turns_running', { phase: 'waiting_approval' }) === 0);
    expect(total(idle, 'strand_turns_running', { phase: 'waiting_approval' })).toBe(0);
  } finally {
    sse.close();
  }
}, 90_000);
