import { openSse, readUntil } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * An interrupt at the edges of a turn, on the whole stack (HTTP → gateway → session workflow → turn):
 * sent a few milliseconds after the prompt was accepted (the session may still be starting the turn's
 * workflow) it stops that turn, which ends `aborted` without its full answer; sent as the turn ends
 * (at its `message.done`) it is answered, never a 5xx.
 */
let stack: TestStack;
let base: string;

beforeAll(async () => {
  stack = await startTestStack({ STRAND_SCRIPTED_DELTA_DELAY_MS: '20' });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
}, 60_000);

const long = `Please echo this back\n${Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function session(name: string): Promise<string> {
  const created = await http(base, 'POST', '/api/sessions', { project_path: `/tmp/strand-e2e-edges-${name}` });
  expect(created.status).toBe(201);
  return created.body.session_id as string;
}

/** The turn's end as the stream tells it, and the stored assistant text (empty when none was stored). */
async function endOf(sid: string): Promise<{ outcome: string; stored: string }> {
  const events = await openSse(`${base}/api/sessions/${sid}/events?after=0`);
  const read = await readUntil(events, (e) => e.event === 'turn.finished');
  events.close();
  const messages = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages as Array<{ message: { role: string; content: Array<{ text?: string }> } }>;
  const assistant = messages.find((m) => m.message.role === 'assistant');
  return { outcome: JSON.parse(read[read.length - 1]!.data).outcome, stored: assistant?.message.content.map((c) => c.text ?? '').join('') ?? '' };
}

test('interrupts 0, 10, 25, 50 and 100 ms after the prompt was accepted: every turn ends aborted without its full answer', async () => {
  const results: Array<{ delay: number; status: number; body: unknown; outcome: string; full: boolean }> = [];
  for (const delay of [0, 10, 25, 50, 100]) {
    // Four sessions at a time, each with one prompt and one interrupt.
    await Promise.all(
      [0, 1, 2, 3].map(async (i) => {
        const sid = await session(`${delay}-${i}`);
        const accepted = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: long });
        expect(accepted.status).toBe(202);
        if (delay > 0) await sleep(delay);
        const res = await http(base, 'POST', `/api/sessions/${sid}/interrupt`);
        const end = await endOf(sid);
        results.push({ delay, status: res.status, body: res.body, outcome: end.outcome, full: end.stored === `You said: ${long}` });
      }),
    );
  }
  expect(results).toHaveLength(20);
  // Every one that went wrong is listed (not only the first).
  const ok = (r: (typeof results)[number]) => r.status === 200 && (r.body as { status?: string }).status === 'interrupted' && (r.body as { turn_id?: string }).turn_id === 't1' && r.outcome === 'aborted' && !r.full;
  expect(results.filter((r) => !ok(r))).toEqual([]);
}, 240_000);

test('10 interrupts sent as the turn ends (at its message.done) are answered, none with a 5xx', async () => {
  const statuses: Array<{ status: number; body: unknown }> = [];
  for (let i = 0; i < 10; i++) {
    const sid = await session(`done-${i}`);
    const events = await openSse(`${base}/api/sessions/${sid}/events`);
    await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'short' });
    await readUntil(events, (e) => e.event === 'message.done');
    const res = await http(base, 'POST', `/api/sessions/${sid}/interrupt`);
    statuses.push({ status: res.status, body: res.body });
    events.close();
  }
  expect(statuses.filter((s) => s.status !== 200 || !['interrupted', 'not_running'].includes((s.body as { status?: string }).status ?? ''))).toEqual([]);
}, 240_000);
