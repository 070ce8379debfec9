import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { sessionWorkflowId, turnWorkflowId } from '../../contracts/workflow-ids';
import { AcpTestAgent } from '../harness/acp-client';
import { startFakeAnthropicServer, type FakeAnthropicReply, type FakeProviderServer } from '../harness/fake-anthropic-server';
import { startFakeOpenAIServer, type FakeOpenAIReply } from '../harness/fake-openai-server';
import { openSse, readUntil } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * Images in prompts end to end (docs/images.md): one real stack whose worker talks to a local
 * Anthropic Messages API and a local OpenAI Chat Completions API, both recording each request.
 * An image sent with `POST …/prompt` reaches each provider in its own wire shape with the same
 * base64, the user message keeps an image block (reference and size, not the bytes), transcripts
 * show an attachment line; a model the catalog says takes no images and an image over the cap are
 * refused with 400 before any turn; an ACP image block reaches the provider the same way.
 */
jest.setTimeout(120_000);

/** A real 1×1 PNG (70 bytes). */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** PNG-signed bytes of an exact size (providers are fakes: only the gateway's checks look inside). */
const pngOfSize = (size: number) => Buffer.concat([Buffer.from(PNG_SIGNATURE), Buffer.alloc(size - PNG_SIGNATURE.length, 7)]).toString('base64');
const MIB = 1024 * 1024;

let stack: TestStack;
let anthropic: FakeProviderServer<FakeAnthropicReply>;
let openai: FakeProviderServer<FakeOpenAIReply>;
let base: string;
let workspace: string;
const agents: AcpTestAgent[] = [];

beforeAll(async () => {
  [anthropic, openai] = await Promise.all([startFakeAnthropicServer(), startFakeOpenAIServer()]);
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-images-')));
  stack = await startTestStack({
    ANTHROPIC_API_KEY: 'test-key',
    ANTHROPIC_BASE_URL: anthropic.baseURL,
    OPENAI_API_KEY: 'test-key',
    OPENAI_BASE_URL: openai.baseURL,
    STRAND_DEFAULT_MODEL: 'anthropic/claude-sonnet-4-6',
  });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await Promise.all(agents.map((a) => a.kill()));
  await stack?.teardown();
  await Promise.all([anthropic?.close(), openai?.close()]);
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

async function session(model: string): Promise<string> {
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace, model });
  expect(created.status).toBe(201);
  return created.body.session_id as string;
}

/** Sends a prompt and waits for its turn to finish (read from the session's SSE stream). */
async function promptTurn(sid: string, body: unknown): Promise<void> {
  const stream = await openSse(`${base}/api/sessions/${sid}/events`);
  try {
    const sent = await http(base, 'POST', `/api/sessions/${sid}/prompt`, body);
    expect(sent).toMatchObject({ status: 202 });
    const events = await readUntil(stream, (e) => e.event === 'turn.finished', 60_000);
    expect(JSON.parse(events.at(-1)!.data).outcome).toBe('done');
  } finally {
    stream.close();
  }
}

/** What would show a turn having started: messages stored, a running or queued turn. */
const turnTrace = async (sid: string) => {
  const { message_count, active_turn, queue_length } = (await http(base, 'GET', `/api/sessions/${sid}`)).body;
  return { message_count, active_turn, queue_length };
};
const NO_TURN = { message_count: 0, active_turn: null, queue_length: 0 };

test('Anthropic: the image reaches the Messages API as a base64 image block; the user message and transcripts keep an attachment, not the bytes', async () => {
  const sid = await session('anthropic/claude-sonnet-4-6');
  anthropic.reply({ blocks: [{ type: 'text', text: 'A single pixel.' }] });
  const before = anthropic.requests.length;
  await promptTurn(sid, { text: 'What is in this picture?', images: [{ media_type: 'image/png', data: PNG }] });
  expect(anthropic.requests.length).toBe(before + 1);
  const messages = anthropic.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown[] }>;
  expect(messages[0]!.role).toBe('user');
  expect(messages[0]!.content).toEqual([
    expect.objectContaining({ type: 'text', text: 'What is in this picture?' }),
    expect.objectContaining({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }),
  ]);

  const page = await http(base, 'GET', `/api/sessions/${sid}/messages`);
  const user = page.body.messages.find((m: any) => m.message?.role === 'user').message;
  expect(user.content).toEqual([
    { type: 'text', text: 'What is in this picture?' },
    { type: 'image', data: '', mime: 'image/png', ref: expect.stringMatching(/^sha256-[0-9a-f]{64}$/), bytes: 70 },
  ]);

  const md = await fetch(`${base}/api/sessions/${sid}/transcript?format=markdown`).then((r) => r.text());
  expect(md).toContain('## User\n\nWhat is in this picture?\n[Attachment: image, image/png, 70 bytes]\n');
  const org = await fetch(`${base}/api/sessions/${sid}/transcript?format=org`).then((r) => r.text());
  expect(org).toContain('* User\nWhat is in this picture?\n[Attachment: image, image/png, 70 bytes]\n');
  const json = await fetch(`${base}/api/sessions/${sid}/transcript?format=json`).then((r) => r.text());
  expect(JSON.parse(json).messages[0].message.content[1]).toMatchObject({ type: 'image', mime: 'image/png', bytes: 70, data: '' });
  for (const body of [md, org, json]) expect(body).not.toContain(PNG.slice(0, 24));

  // A later turn sends the earlier image again (it is part of the conversation), and an image at the
  // per-image cap gets through the gateway's body limit and reaches the provider whole.
  anthropic.reply({ blocks: [{ type: 'text', text: 'A big one.' }] });
  const big = pngOfSize(5 * MIB);
  await promptTurn(sid, { text: 'And this one?', images: [{ media_type: 'image/png', data: big }] });
  const second = anthropic.requests.at(-1)!.body.messages as Array<{ role: string; content: Array<{ type: string; source?: { data: string } }> }>;
  const sentImages = second.filter((m) => m.role === 'user').flatMap((m) => m.content.filter((b) => b.type === 'image').map((b) => b.source!.data));
  expect(sentImages).toHaveLength(2);
  expect(sentImages[0]).toBe(PNG);
  // Compared as a boolean: a failing toBe would print megabytes.
  expect(sentImages[1]!.length).toBe(big.length);
  expect(sentImages[1] === big).toBe(true);

  // The bytes never went through Temporal: the session's and the turn's histories hold references only.
  const connection = await Connection.connect({ address: stack.urls.temporal });
  try {
    const client = new Client({ connection });
    for (const id of [sessionWorkflowId(sid), turnWorkflowId(sid, 2)]) {
      // Payload bytes come as base64 (proto JSON): decoded, so the payloads' own JSON is searched.
      const decode = (k: string, v: unknown) => (v instanceof Uint8Array ? Buffer.from(v).toString('latin1') : k === 'data' && typeof v === 'string' ? Buffer.from(v, 'base64').toString('latin1') : v);
      const history = JSON.stringify(await client.workflow.getHandle(id).fetchHistory(), decode);
      // Booleans: a failing toContain would print the whole history.
      expect(/images\\":\[\{\\"ref\\":\\"sha256-[0-9a-f]{64}/.test(history)).toBe(true);
      expect(history.includes(big.slice(0, 64)) || history.includes(PNG.slice(0, 24))).toBe(false);
      expect(history.length).toBeLessThan(256 * 1024);
    }
  } finally {
    await connection.close();
  }
});

test('OpenAI: the image reaches Chat Completions as an image_url part with a data URL', async () => {
  const sid = await session('openai/gpt-5-mini');
  openai.reply({ content: 'A single pixel.' });
  const before = openai.requests.length;
  await promptTurn(sid, { text: 'Describe it.', images: [{ media_type: 'image/png', data: PNG }] });
  expect(openai.requests.length).toBe(before + 1);
  const messages = openai.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
  expect(messages.find((m) => m.role === 'user')!.content).toEqual([
    { type: 'text', text: 'Describe it.' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
  ]);
});

test('a model without image support, an image over the cap, bad base64 and a wrong type are refused with 400 before any turn', async () => {
  const sid = await session('openai/o3-mini');
  const requestsBefore = openai.requests.length;
  const refused = await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'Look', images: [{ media_type: 'image/png', data: PNG }] });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({ code: 'IMAGES_NOT_SUPPORTED', message: expect.stringContaining('openai/o3-mini does not take images') });

  const other = await session('anthropic/claude-sonnet-4-6');
  const tooBig = await http(base, 'POST', `/api/sessions/${other}/prompt`, { text: 'Look', images: [{ media_type: 'image/png', data: pngOfSize(5 * MIB + 1) }] });
  expect(tooBig.status).toBe(400);
  expect(tooBig.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: `image 1 is ${5 * MIB + 1} bytes: larger than 5 MiB (the cap per image)` });
  const badBase64 = await http(base, 'POST', `/api/sessions/${other}/prompt`, { text: 'Look', images: [{ media_type: 'image/png', data: 'not base64!' }] });
  expect(badBase64.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('image 1: data is not valid base64') });
  const wrongType = await http(base, 'POST', `/api/sessions/${other}/prompt`, { text: 'Look', images: [{ media_type: 'image/tiff', data: PNG }] });
  expect(wrongType.status).toBe(400);
  expect(wrongType.body.error.code).toBe('INVALID_REQUEST');
  expect(wrongType.body.error.message).toContain('media_type');
  const mislabelled = await http(base, 'POST', `/api/sessions/${other}/prompt`, { text: 'Look', images: [{ media_type: 'image/jpeg', data: PNG }] });
  expect(mislabelled.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: 'image 1: the bytes are not a image/jpeg image' });

  // Nothing started: no turn was numbered, no provider was asked.
  expect(await turnTrace(sid)).toEqual(NO_TURN);
  expect(await turnTrace(other)).toEqual(NO_TURN);
  expect(openai.requests.length).toBe(requestsBefore);
});

test('ACP: initialize offers images; an image block in session/prompt reaches the provider', async () => {
  const a = new AcpTestAgent(AcpTestAgent.env(stack.urls, { ANTHROPIC_API_KEY: 'test-key', STRAND_DEFAULT_MODEL: 'anthropic/claude-sonnet-4-6' }));
  agents.push(a);
  const init = await a.initialize();
  expect(init.agentCapabilities?.promptCapabilities).toMatchObject({ image: true });
  const { sessionId } = await a.agent.request('session/new', { cwd: workspace, mcpServers: [] });
  anthropic.reply({ blocks: [{ type: 'text', text: 'Seen.' }] });
  const answer = await a.agent.request('session/prompt', {
    sessionId,
    prompt: [
      { type: 'text', text: 'From the editor:' },
      { type: 'image', mimeType: 'image/png', data: PNG },
    ],
  });
  expect(answer).toEqual({ stopReason: 'end_turn' });
  const messages = anthropic.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown[] }>;
  expect(messages[0]!.content).toEqual([
    expect.objectContaining({ type: 'text', text: 'From the editor:' }),
    expect.objectContaining({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }),
  ]);
  // A broken image is refused as invalid params, and the client is told why.
  await expect(a.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'x' }, { type: 'image', mimeType: 'image/png', data: '%%%' }] })).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('not valid base64'),
  });
  expect(a.violations).toEqual([]);
});
