import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure } from '@temporalio/common';
import { createDeliverJobNotification, signBody } from './deliver';

/** The delivery's decisions without a network: what is signed, what is retried, what is final. */
function deliverWith(status: number | Error, env: NodeJS.ProcessEnv = { STRAND_JOB_SECRET_T: 'k' }) {
  const sent: Array<{ url: string; init: RequestInit }> = [];
  const fetch = (async (url: string, init: RequestInit) => {
    sent.push({ url, init });
    if (status instanceof Error) throw status;
    return new Response(null, { status });
  }) as unknown as typeof globalThis.fetch;
  const deliver = createDeliverJobNotification({ env, fetch, now: () => new Date('2026-11-29T08:00:00Z') });
  const run = (secret_env?: string) =>
    new MockActivityEnvironment({ attempt: 3 }).run(deliver, { url: 'http://127.0.0.1:1/hook', event: 'job.finished' as const, delivery_id: 'job:j:report', payload: { a: 'é' }, ...(secret_env ? { secret_env } : {}) });
  return { sent, run };
}

test('a 2xx delivers: the exact body is signed, the headers name the event, the delivery and the attempt time', async () => {
  const { sent, run } = deliverWith(204);
  expect(await run('STRAND_JOB_SECRET_T')).toEqual({ delivered_at: '2026-11-29T08:00:00.000Z', attempts: 3, status_code: 204 });
  const headers = sent[0]!.init.headers as Record<string, string>;
  expect(sent[0]!.init.body).toBe('{"a":"é"}');
  expect(headers).toMatchObject({ 'X-Strand-Event': 'job.finished', 'X-Strand-Delivery': 'job:j:report', 'X-Strand-Timestamp': '2026-11-29T08:00:00.000Z', 'X-Strand-Signature': signBody('k', '{"a":"é"}') });
  expect(sent[0]!.init.redirect).toBe('manual');
});

test('no secret_env: no signature header', async () => {
  const { sent, run } = deliverWith(200);
  await run();
  expect(Object.keys(sent[0]!.init.headers as object)).not.toContain('X-Strand-Signature');
});

test.each([
  [500, false],
  [503, false],
  [408, false],
  [429, false],
  [400, true],
  [404, true],
  [302, true],
])('status %d: nonRetryable %s', async (status, final) => {
  const err = await deliverWith(status).run('STRAND_JOB_SECRET_T').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApplicationFailure);
  expect((err as ApplicationFailure).nonRetryable).toBe(final);
  expect((err as ApplicationFailure).details).toEqual([{ attempt: 3 }]);
});

test('a network failure is retried; a secret the worker lacks is final and nothing is sent', async () => {
  const down = await deliverWith(new Error('ECONNREFUSED')).run().catch((e: unknown) => e);
  expect((down as ApplicationFailure).nonRetryable).toBe(false);
  const { sent, run } = deliverWith(200, {});
  const missing = await run('STRAND_JOB_SECRET_T').catch((e: unknown) => e);
  expect((missing as ApplicationFailure).nonRetryable).toBe(true);
  expect(sent).toHaveLength(0);
});
