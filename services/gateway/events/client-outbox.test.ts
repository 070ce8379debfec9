import { Writable } from 'node:stream';
import { ClientOutbox, type CutReason, type OutboxSink } from './client-outbox';

/** A real Node stream that takes chunks only when the test lets its client read, as a sink. */
function heldSink() {
  const taken: string[] = [];
  let pending: Array<() => void> = [];
  const out = new Writable({
    highWaterMark: 4,
    write(chunk: Buffer, _enc, done) {
      pending.push(() => {
        taken.push(chunk.toString());
        done();
      });
    },
  });
  const events: string[] = [];
  const sink: OutboxSink = {
    write: (data) => void out.write(data),
    unsent: () => out.writableLength,
    open: () => !out.destroyed && !out.writableEnded,
    end: (last) => {
      events.push(`end ${last ?? ''}`);
      out.end(last);
    },
    destroy: () => {
      events.push('destroy');
      out.destroy();
    },
  };
  const read = () => {
    const step = () => {
      const now = pending;
      pending = [];
      for (const p of now) p();
      if (pending.length > 0 || out.writableLength > 0) setImmediate(step);
    };
    step();
  };
  return { sink, taken, events, read };
}

const words = (reason: CutReason, unsent: number) => `cut:${reason}:${unsent}`;

test('under the bound the producer goes on; over it, ready waits until the client is back at half', async () => {
  const { sink, taken, read } = heldSink();
  const outbox = new ClientOutbox(sink, { maxUnsentBytes: 10, slowConsumerMs: 60_000 }, words);
  expect(outbox.send('aaaa')).toBe(true);
  await expect(outbox.ready()).resolves.toBe(true);
  outbox.send('bbbbbbbb');
  expect(outbox.full).toBe(true);
  const waiting = outbox.ready();
  read();
  await expect(waiting).resolves.toBe(true);
  expect(taken.join('')).toBe('aaaabbbbbbbb');
  expect(outbox.cut).toBeUndefined();
  outbox.close();
});

test('a client that does not catch up in time is cut: last words, then dropped when it does not take them', async () => {
  const { sink, events } = heldSink();
  const cuts: CutReason[] = [];
  const outbox = new ClientOutbox(sink, { maxUnsentBytes: 10, slowConsumerMs: 0, graceMs: 0 }, words, (r) => cuts.push(r));
  outbox.send('aaaaaaaaaaaa');
  await expect(outbox.ready()).resolves.toBe(false);
  expect(cuts).toEqual(['slow']);
  expect(outbox.send('more')).toBe(false);
  await new Promise((r) => setTimeout(r, 0));
  expect(events).toEqual(['end cut:slow:12', 'destroy']);
});

test('a write past the hard limit cuts at once; one write into an empty buffer always goes', () => {
  const { sink, events } = heldSink();
  const outbox = new ClientOutbox(sink, { maxUnsentBytes: 4, slowConsumerMs: 60_000, hardLimitBytes: 8 }, words);
  expect(outbox.send('0123456789')).toBe(true);
  expect(outbox.send('x')).toBe(false);
  expect(outbox.cut).toBe('overflow');
  expect(events).toEqual(['end cut:overflow:10']);
});

test('keepalives go out only while nothing is unsent, and stop with close', async () => {
  const { sink, taken, read } = heldSink();
  const outbox = new ClientOutbox(sink, { maxUnsentBytes: 100, slowConsumerMs: 60_000, keepalive: { everyMs: 1, frame: 'k' } }, words);
  while (taken.length < 2) {
    read();
    await new Promise((r) => setTimeout(r, 5));
  }
  outbox.close();
  read();
  const count = taken.length;
  await new Promise((r) => setTimeout(r, 20));
  read();
  expect(taken.length).toBe(count);
  expect(new Set(taken)).toEqual(new Set(['k']));
});
