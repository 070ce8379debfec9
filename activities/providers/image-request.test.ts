import { FailureType } from '../../contracts/failures';
import { lookupModel, builtinModelCatalog } from '../../contracts/model-catalog';
import { createMemoryPromptImageStore } from '../../contracts/prompt-image-store';
import { userContent } from '../store/session-activities';
import { buildAnthropicRequest } from './anthropic-request';
import { withImageBytes } from './image-bytes';
import { buildOpenAIRequest } from './openai-request';
import type { ProviderMessage, ProviderRequest } from './types';

/**
 * A prompt image from the user message the turn stores (a reference) to each provider's wire shape:
 * the model step fills in the bytes from the image store, then each request builder writes its API's
 * image block with the same base64.
 */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

async function promptContext() {
  const images = createMemoryPromptImageStore();
  const ref = await images.put(Buffer.from(PNG, 'base64'), 'image/png');
  const stored: ProviderMessage[] = [{ role: 'user', content: userContent({ text: 'What is in this picture?', images: [ref] }) }];
  return { images, ref, stored };
}

const request = (messages: ProviderMessage[], model: string): ProviderRequest => ({ model, system: 'sys', messages, tools: [], thinking_level: 'off', signal: new AbortController().signal });

test('the user message keeps a reference; the step fills in the bytes before building a request', async () => {
  const { images, ref, stored } = await promptContext();
  expect(ref).toEqual({ ref: expect.stringMatching(/^sha256-[0-9a-f]{64}$/), mime: 'image/png', bytes: 70 });
  expect(stored[0]!.content).toEqual([{ type: 'text', text: 'What is in this picture?' }, { type: 'image', data: '', mime: 'image/png', ref: ref.ref, bytes: 70 }]);
  const filled = await withImageBytes(stored, images);
  expect(filled[0]!.content[1]).toEqual({ type: 'image', mime: 'image/png', data: PNG });
  // The same bytes again are the same object.
  expect(await images.put(Buffer.from(PNG, 'base64'), 'image/png')).toEqual(ref);
  expect(images.size()).toBe(1);
});

test('an image the bucket no longer has becomes a note; no store at all, the same', async () => {
  const { stored } = await promptContext();
  const gone = await withImageBytes(stored, createMemoryPromptImageStore());
  expect(gone[0]!.content[1]).toEqual({ type: 'text', text: '(an image (image/png) was omitted: its bytes are no longer stored)' });
  expect((await withImageBytes(stored, undefined))[0]!.content[1]).toMatchObject({ type: 'text' });
});

test('an unreadable image store fails the step as retryable infrastructure', async () => {
  const { stored } = await promptContext();
  await expect(withImageBytes(stored, { get: () => Promise.reject(new Error('bucket offline')) })).rejects.toMatchObject({ type: FailureType.STORE_UNAVAILABLE, nonRetryable: false });
});

test('Anthropic: a base64 image block after the text', async () => {
  const { images, stored } = await promptContext();
  const params = buildAnthropicRequest(request(await withImageBytes(stored, images), 'claude-sonnet-4-6'), lookupModel(builtinModelCatalog, 'anthropic/claude-sonnet-4-6'));
  const content = params.messages[0]!.content as unknown as Array<Record<string, unknown>>;
  expect(content[0]).toMatchObject({ type: 'text', text: 'What is in this picture?' });
  expect(content[1]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } });
});

test('OpenAI chat completions: an image_url part with a data URL after the text', async () => {
  const { images, stored } = await promptContext();
  const params = buildOpenAIRequest(request(await withImageBytes(stored, images), 'gpt-5-mini'), lookupModel(builtinModelCatalog, 'openai/gpt-5-mini'));
  const user = params.messages.find((m) => m.role === 'user')!;
  expect(user.content).toEqual([
    { type: 'text', text: 'What is in this picture?' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
  ]);
});

test('a model the catalog says takes no images gets a note instead (a model switched after the prompt)', async () => {
  const { images, stored } = await promptContext();
  const params = buildOpenAIRequest(request(await withImageBytes(stored, images), 'o3-mini'), lookupModel(builtinModelCatalog, 'openai/o3-mini'));
  expect(JSON.stringify(params.messages)).not.toContain(PNG);
  expect(JSON.stringify(params.messages)).toContain('o3-mini does not accept images');
});
