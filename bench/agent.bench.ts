import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createAnthropicProvider } from '../activities/providers/anthropic';
import { startStack } from '../infra/stack/stack';
import { startFakeAnthropicServer, type FakeAnthropicReply } from '../test/harness/fake-anthropic-server';
import type { RecordedRequest } from '../test/harness/fake-anthropic-server';
import { openSse, type SseConnection } from '../test/harness/sse-client';
import { median, nowMs } from './stats';

/**
 * The coding agent over the real local stack with a local server speaking Anthropic's streaming
 * format (issue 8's figures), printed as JSON:
 * - latency: prompt POST → first `message.delta` at an SSE client and → `turn.finished`, p50/p99 over
 *   TURNS sequential turns (median of RUNS runs), against the same provider call made in-process
 *   (the real SDK against the same server, no Temporal, no NATS) in the same run;
 * - throughput: CONCURRENCY sessions each running turns with one tool call (read_file, auto-approved)
 *   for SECONDS; completed turns per second.
 * Run: `npm run bench:agent`.
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const TURNS = Number(process.env.BENCH_TURNS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const MODEL = 'anthropic/claude-sonnet-4-6';
const progress = (what: string) => console.error(`[bench] ${what}`);
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? NaN;
const round = (x: number) => +x.toFixed(1);

/** A prompt starting with "tool" asks for read_file first; after a tool result, or otherwise, the model answers. */
function respond(req: RecordedRequest): FakeAnthropicReply {
  const messages = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = JSON.stringify(messages[messages.length - 1]?.content ?? '');
  if (last.includes('tool_result') || !last.includes('tool please')) return { blocks: [{ type: 'text', text: 'All done here, nothing else to add.' }], usage: { input_tokens: 50, output_tokens: 8 } };
  return { blocks: [{ type: 'tool_use', name: 'read_file', input: { path: 'README.md' } }], usage: { input_tokens: 50, output_tokens: 12 } };
}

async function post(base: string, route: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as Record<string, unknown>;
}

async function until(conn: SseConnection, event: string): Promise<number> {
  for (;;) {
    const e = await conn.next(30_000);
    if (!e) throw new Error('event stream ended');
    if (e.event === event) return nowMs();
  }
}

async function latencyRun(base: string, workspace: string) {
  const { session_id: sid } = await post(base, '/api/sessions', { project_path: workspace, model: MODEL });
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  const first: number[] = [];
  const done: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const t0 = nowMs();
    await post(base, `/api/sessions/${sid}/prompt`, { text: `probe ${i}` });
    first.push((await until(events, 'message.delta')) - t0);
    done.push((await until(events, 'turn.finished')) - t0);
    await until(events, 'agent.state');
  }
  events.close();
  return { first, done };
}

async function baseline(baseURL: string) {
  const provider = createAnthropicProvider({ apiKey: 'bench', baseURL });
  const first: number[] = [];
  const done: number[] = [];
  for (let i = 0; i < TURNS; i++) {
    const t0 = nowMs();
    let seen = false;
    for await (const c of provider.stream({ model: 'claude-sonnet-4-6', system: 's', tools: [], thinking_level: 'off', signal: new AbortController().signal, messages: [{ role: 'user', content: [{ type: 'text', text: `probe ${i}` }] }] })) {
      if (c.type === 'text_delta' && !seen) {
        seen = true;
        first.push(nowMs() - t0);
      }
    }
    done.push(nowMs() - t0);
  }
  return { first, done };
}

async function throughput(base: string, workspace: string): Promise<number> {
  const deadline = nowMs() + SECONDS * 1000;
  let completed = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const { session_id: sid } = await post(base, '/api/sessions', { project_path: workspace, model: MODEL });
      const events = await openSse(`${base}/api/sessions/${sid}/events`);
      while (nowMs() < deadline) {
        await post(base, `/api/sessions/${sid}/prompt`, { text: 'tool please: read the readme' });
        await until(events, 'turn.finished');
        await until(events, 'agent.state');
        completed += 1;
      }
      events.close();
    }),
  );
  return completed / SECONDS;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-agent-'));
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-bench-ws-'));
  fs.writeFileSync(path.join(workspace, 'README.md'), '# bench\nA small file the agent reads.\n');
  const fake = await startFakeAnthropicServer({ respond });
  progress('starting the stack');
  const stack = await startStack(
    {
      dataDir,
      host: '127.0.0.1',
      ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 },
      ui: false,
      serviceEnv: { STRAND_LOG_LEVEL: 'warn', ANTHROPIC_API_KEY: 'bench', ANTHROPIC_BASE_URL: fake.baseURL },
    },
    () => undefined,
  );
  try {
    const runs: Array<{ stack: Awaited<ReturnType<typeof latencyRun>>; base: Awaited<ReturnType<typeof baseline>> }> = [];
    for (let r = 0; r < RUNS; r++) {
      progress(`latency run ${r + 1}/${RUNS}: ${TURNS} turns`);
      runs.push({ stack: await latencyRun(stack.urls.gateway, workspace), base: await baseline(fake.baseURL) });
    }
    progress(`throughput: ${CONCURRENCY} sessions for ${SECONDS} s, one tool call per turn`);
    const turnsPerSecond = await throughput(stack.urls.gateway, workspace);
    const med = (pick: (r: (typeof runs)[number]) => number[], p: number) => round(median(runs.map((r) => pct(pick(r), p))));
    const out = {
      bench: 'agent',
      provider: 'fake Anthropic server (real SDK, real streaming format)',
      runs: RUNS,
      turns_per_run: TURNS,
      prompt_to_first_delta_ms: { p50: med((r) => r.stack.first, 0.5), p99: med((r) => r.stack.first, 0.99) },
      prompt_to_turn_finished_ms: { p50: med((r) => r.stack.done, 0.5), p99: med((r) => r.stack.done, 0.99) },
      baseline_in_process_first_delta_ms: { p50: med((r) => r.base.first, 0.5), p99: med((r) => r.base.first, 0.99) },
      baseline_in_process_done_ms: { p50: med((r) => r.base.done, 0.5), p99: med((r) => r.base.done, 0.99) },
      first_delta_overhead_ms: {
        p50: round(med((r) => r.stack.first, 0.5) - med((r) => r.base.first, 0.5)),
        p99: round(med((r) => r.stack.first, 0.99) - med((r) => r.base.first, 0.99)),
      },
      throughput: { concurrency: CONCURRENCY, seconds: SECONDS, tool_calls_per_turn: 1, turns_per_second: round(turnsPerSecond) },
    };
    console.log(JSON.stringify(out, null, 2));
  } finally {
    await stack.stop();
    await fake.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
