import fsp from 'node:fs/promises';
import path from 'node:path';
import { connect, type Msg, type NatsConnection } from 'nats';
import type { StoreClient } from '../contracts/session-store/client';
import type { Message } from '../contracts/session-store/schemas';
import { median, ms, nowMs, percentile } from './stats';

/** The measurements of the store benchmark that do not depend on the adapter under test. */
export const msg = (i: number): Message => ({ role: 'user', content: [{ type: 'text', text: `message number ${i} with a little text` }], timestamp: i });

/** Appends at a steady rate (not back to back) and returns each append's latency. */
async function paced(client: StoreClient, sessionId: string, perSecond: number, count: number): Promise<number[]> {
  const latencies: number[] = [];
  const start = nowMs();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + (i * 1000) / perSecond;
    const wait = due - nowMs();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const t0 = nowMs();
    inFlight.push(client.append({ session_id: sessionId, message: msg(i) }).then(() => void latencies.push(nowMs() - t0)));
  }
  await Promise.all(inFlight);
  return latencies;
}

/** Appends per second with `concurrency` requests in flight, spread round-robin over `sessions`. */
async function throughput(client: StoreClient, sessions: string[], total: number, concurrency: number): Promise<number> {
  let next = 0;
  const t0 = nowMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const i = next++;
        await client.append({ session_id: sessions[i % sessions.length]!, message: msg(i) });
      }
    }),
  );
  return total / ((nowMs() - t0) / 1000);
}

async function timed(fn: () => Promise<unknown>, times: number): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < times; i++) {
    const t0 = nowMs();
    await fn();
    xs.push(nowMs() - t0);
  }
  return median(xs);
}

/** Baseline: a bare NATS request/reply round trip, the floor under every store call. */
export async function baselineNatsRtt(nc: NatsConnection): Promise<number> {
  const sub = nc.subscribe('bench.echo', { callback: (_e, m) => m.respond(m.data) });
  const t = await timed(() => nc.request('bench.echo', '{}', { timeout: 2000 }), 2000);
  sub.unsubscribe();
  return t;
}

/** Baseline: one small line appended and fdatasync'ed, the floor under a durable fs append. */
export async function baselineFdatasync(dir: string): Promise<{ p50: number; p99: number }> {
  const file = path.join(dir, 'fsync-baseline');
  const xs: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = nowMs();
    const h = await fsp.open(file, 'a+');
    await h.write('{"type":"leaf","entry_id":"x"}\n');
    await h.datasync();
    await h.close();
    xs.push(nowMs() - t0);
    await new Promise((r) => setTimeout(r, 1)); // paced like the 1,000/s run, not back to back
  }
  return { p50: ms(percentile(xs, 50)), p99: ms(percentile(xs, 99)) };
}

/**
 * Baseline: the floor under a durable append over NATS at the same steady 1,000/s — a bare responder
 * with no store code that appends a line per request and replies after fdatasync, gathering requests
 * that arrive during an fsync into the next one (group commit, as the fs adapter does).
 */
export async function baselineDurableEcho(nc: NatsConnection, natsUrl: string, dir: string, runs: number): Promise<{ p50: number; p99: number }> {
  const responder = await connect({ servers: natsUrl });
  const h = await fsp.open(path.join(dir, 'echo-baseline'), 'a+');
  let waiting: Msg[] = [];
  let syncing: Promise<void> | undefined;
  const drain = async () => {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      await h.write('{"type":"leaf","entry_id":"x"}\n'.repeat(batch.length));
      await h.datasync();
      for (const m of batch) m.respond(m.data);
    }
    syncing = undefined;
  };
  responder.subscribe('bench.durable-echo', {
    callback: (_e, m) => {
      waiting.push(m);
      syncing ??= drain();
    },
  });
  await responder.flush();
  const p50: number[] = [];
  const p99: number[] = [];
  for (let r = 0; r < runs; r++) {
    const lat: number[] = [];
    const start = nowMs();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < 3000; i++) {
      const wait = start + i - nowMs();
      if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      const t0 = nowMs();
      inFlight.push(nc.request('bench.durable-echo', '{}', { timeout: 5000 }).then(() => void lat.push(nowMs() - t0)));
    }
    await Promise.all(inFlight);
    p50.push(percentile(lat, 50));
    p99.push(percentile(lat, 99));
  }
  await syncing;
  await h.close();
  await responder.close();
  return { p50: ms(median(p50)), p99: ms(median(p99)) };
}

/** Baseline: one small JetStream publish acknowledged, the floor under a durable jetstream append. */
export async function baselineJetStreamPublish(nc: NatsConnection): Promise<{ p50: number; p99: number }> {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: 'BENCH_BASELINE', subjects: ['bench.baseline.>'] });
  const js = nc.jetstream();
  const xs: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t0 = nowMs();
    await js.publish(`bench.baseline.${i % 100}`, '{"type":"leaf","entry_id":"x"}');
    xs.push(nowMs() - t0);
    await new Promise((r) => setTimeout(r, 1));
  }
  await jsm.streams.delete('BENCH_BASELINE');
  return { p50: ms(percentile(xs, 50)), p99: ms(percentile(xs, 99)) };
}

/** The figures measured over NATS against a running store process, whatever its adapter. */
export async function measureOverNats(client: StoreClient, runs: number) {
  const p50: number[] = [];
  const p99: number[] = [];
  for (let r = 0; r < runs; r++) {
    const { session_id } = await client.create({});
    const lat = await paced(client, session_id, 1000, 3000);
    p50.push(percentile(lat, 50));
    p99.push(percentile(lat, 99));
  }
  const one: number[] = [];
  const hundred: number[] = [];
  for (let r = 0; r < runs; r++) {
    one.push(await throughput(client, [(await client.create({})).session_id], 3000, 64));
    const many = await Promise.all(Array.from({ length: 100 }, () => client.create({}).then((c) => c.session_id)));
    hundred.push(await throughput(client, many, 3000, 64));
  }
  const { session_id: big } = await client.create({});
  for (let i = 0; i < 10_000; i += 500) {
    await client.appendMany({ session_id: big, messages: Array.from({ length: 500 }, (_, k) => msg(i + k)) });
  }
  let cursor: string | undefined;
  let lastCursor: string | undefined;
  do {
    const page = await client.messages({ session_id: big, limit: 50, ...(cursor ? { cursor } : {}) });
    lastCursor = cursor;
    cursor = page?.next_cursor;
  } while (cursor);
  const firstPage = await timed(() => client.messages({ session_id: big, limit: 50 }), 50);
  const lastPage = await timed(() => client.messages({ session_id: big, limit: 50, cursor: lastCursor! }), 50);
  return {
    append_latency_at_1000_per_s_ms: { p50: ms(median(p50)), p99: ms(median(p99)) },
    append_throughput_per_s: { one_session: Math.round(median(one)), hundred_sessions: Math.round(median(hundred)), concurrency: 64 },
    messages_page_50_of_10000_ms: { first: ms(firstPage), last: ms(lastPage) },
  };
}
