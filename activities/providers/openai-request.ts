import type OpenAI from 'openai';
import { clampThinkingLevel, type CatalogModel } from '../../contracts/model-catalog';
import type { ContentBlock } from '../../contracts/session-store/messages';
import { textOf } from './content';
import { argumentsObject } from './tool-args';
import { pairToolResults } from './tool-pairs';
import type { ProviderRequest } from './types';

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming;
type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type Part = OpenAI.Chat.Completions.ChatCompletionContentPartText | OpenAI.Chat.Completions.ChatCompletionContentPartImage;

/**
 * How an OpenAI-compatible server is asked to continue a prefill: `final-message` sends it as the final
 * assistant message (llama.cpp and Ollama continue that message); `continue-final-message` adds vLLM's
 * `continue_final_message: true, add_generation_prompt: false`, without which vLLM starts a new one.
 */
export type OpenAIPrefillDialect = 'final-message' | 'continue-final-message';

/**
 * The streaming Chat Completions request for one step: the dialect every OpenAI-compatible server
 * (Ollama, vLLM, llama.cpp) speaks, so nothing beyond it is sent unless the catalog says the model
 * takes it (`reasoning_effort` only for reasoning models) or a prefill asks for vLLM's fields.
 */
export function buildOpenAIRequest(request: ProviderRequest, entry: CatalogModel, dialect: OpenAIPrefillDialect = 'final-message'): Params {
  const messages: Message[] = request.system ? [{ role: 'system', content: request.system }] : [];
  messages.push(...toMessages(request, entry));
  if (request.prefill) messages.push({ role: 'assistant', content: request.prefill });
  const vllm = request.prefill && dialect === 'continue-final-message' ? { continue_final_message: true, add_generation_prompt: false } : {};
  const effort = reasoningEffort(request, entry);
  return {
    ...vllm,
    model: request.model,
    stream: true,
    stream_options: { include_usage: true },
    messages,
    ...(request.tools.length
      ? { tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.input_schema } })) }
      : {}),
    ...(effort ? { reasoning_effort: effort } : {}),
    ...(request.max_output_tokens ? { max_completion_tokens: request.max_output_tokens } : {}),
  };
}

/** minimal…high as asked (clamped to what the model takes); `off` is `none` only where the model can stop reasoning. */
function reasoningEffort(request: ProviderRequest, entry: CatalogModel): OpenAI.ReasoningEffort | undefined {
  if (!entry.supports.thinking) return undefined;
  const level = clampThinkingLevel(entry, request.thinking_level);
  if (level === 'off') return 'none';
  return level === 'xhigh' ? 'high' : level;
}

function toMessages(request: ProviderRequest, entry: CatalogModel): Message[] {
  const out: Message[] = [];
  // Tool messages carry text only: images a tool returned follow the tool messages as a user message.
  let resultImages: Part[] = [];
  const flushImages = () => {
    if (resultImages.length) out.push({ role: 'user', content: [{ type: 'text', text: 'Images returned by the tools above:' }, ...resultImages] });
    resultImages = [];
  };
  for (const m of pairToolResults(request.messages)) {
    if (m.role !== 'function_result') flushImages();
    if (m.role === 'user') {
      const parts = m.content.flatMap((b) => userPart(b, entry));
      if (parts.length === 0) continue;
      const textOnly = parts.every((p) => p.type === 'text');
      out.push({ role: 'user', content: textOnly ? parts.map((p) => (p as { text: string }).text).join('\n') : parts });
    } else if (m.role === 'assistant') {
      const text = textOf(m.content);
      const calls = m.content.flatMap((b) =>
        b.type === 'function_call' ? [{ id: b.id, type: 'function' as const, function: { name: b.function_id, arguments: JSON.stringify(argumentsObject(b.arguments)) } }] : [],
      );
      if (!text && calls.length === 0) continue; // thinking only, or an empty aborted answer
      out.push({ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) });
    } else {
      const text = textOf(m.content) || (m.is_error ? 'The tool failed without a message.' : '(no output)');
      out.push({ role: 'tool', tool_call_id: m.function_call_id, content: text });
      resultImages.push(...m.content.flatMap((b) => (b.type === 'image' ? userPart(b, entry) : [])));
    }
  }
  flushImages();
  return out;
}

function userPart(b: ContentBlock, entry: CatalogModel): Part[] {
  if (b.type === 'text') return b.text ? [{ type: 'text', text: b.text }] : [];
  if (b.type !== 'image') return [];
  // Unknown models (local servers) get the image: a vision model may serve them; others say so.
  if (entry.known && !entry.supports.images) return [{ type: 'text', text: `(an image was omitted: ${entry.id} does not accept images)` }];
  return [{ type: 'image_url', image_url: { url: `data:${b.mime};base64,${b.data}` } }];
}
