import type Anthropic from '@anthropic-ai/sdk';
import { clampThinkingLevel, type CatalogModel } from '../../contracts/model-catalog';
import type { ContentBlock } from '../../contracts/session-store/messages';
import { holdTrailingWhitespace } from './prefill';
import { argumentsObject } from './tool-args';
import { pairToolResults } from './tool-pairs';
import type { ProviderRequest, ThinkingLevel } from './types';

type Params = Anthropic.MessageCreateParamsStreaming;
type Block = Anthropic.ContentBlockParam;
type ResultBlock = Anthropic.TextBlockParam | Anthropic.ImageBlockParam;

/** Thinking budget per level, in tokens (1024 is the API's minimum). */
const THINKING_BUDGET: Record<Exclude<ThinkingLevel, 'off'>, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32000 };
/** Effort per level for models that think adaptively (the API's scale tops out at `max`). */
const ADAPTIVE_EFFORT = { minimal: 'low', low: 'low', medium: 'medium', high: 'high', xhigh: 'max' } as const;
/** Room left for the answer itself when max_tokens has to grow above the thinking budget. */
const ANSWER_ROOM = 4096;
const CACHE = { type: 'ephemeral' } as const;
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/**
 * The Messages API request for one step. Prompt caching: breakpoints on the system prompt, the last
 * tool and the last user message (3 of the 4 allowed), so an agent loop re-reads its growing prefix
 * from the cache at each step. A prefill (a retried step continuing its answer) becomes the final
 * assistant message, without its trailing whitespace (the API refuses it; see prefill.ts for the
 * join), and turns extended thinking off: the API does not continue a prefilled message with it.
 */
export function buildAnthropicRequest(request: ProviderRequest, entry: CatalogModel): Params {
  const messages = toMessages(request, entry);
  markLastUserMessage(messages);
  const canThink = !request.prefill && canStartThinking(messages);
  const prefill = request.prefill ? holdTrailingWhitespace(request.prefill).sent : '';
  if (prefill) appendAssistantText(messages, prefill);
  const tools: Anthropic.Tool[] = request.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.input_schema as Anthropic.Tool.InputSchema,
  }));
  const lastTool = tools[tools.length - 1];
  if (lastTool) lastTool.cache_control = CACHE;

  const cap = Math.min(request.max_output_tokens ?? entry.max_output_tokens, entry.max_output_tokens);
  const level = canThink ? clampThinkingLevel(entry, request.thinking_level) : 'off';
  const { maxTokens, thinking, outputConfig } = thinkingParams(entry, level, cap);
  return {
    model: request.model,
    max_tokens: maxTokens,
    stream: true,
    messages,
    ...(request.system ? { system: [{ type: 'text', text: request.system, cache_control: CACHE }] } : {}),
    ...(tools.length ? { tools } : {}),
    ...(thinking ? { thinking } : {}),
    ...(outputConfig ? { output_config: outputConfig } : {}),
  };
}

/** Thinking as the model takes it: an effort (adaptive models) or a budget below max_tokens. */
function thinkingParams(entry: CatalogModel, level: ThinkingLevel, cap: number) {
  let maxTokens = cap;
  let thinking: Anthropic.ThinkingConfigParam | undefined;
  let outputConfig: Anthropic.OutputConfig | undefined;
  if (level !== 'off' && entry.thinking_mode === 'adaptive') {
    thinking = { type: 'adaptive' };
    outputConfig = { effort: ADAPTIVE_EFFORT[level] };
  } else if (level !== 'off') {
    maxTokens = Math.min(entry.max_output_tokens, Math.max(cap, THINKING_BUDGET[level] + ANSWER_ROOM));
    const budget = Math.min(THINKING_BUDGET[level], maxTokens - 1024);
    if (budget >= 1024) thinking = { type: 'enabled', budget_tokens: budget };
  }
  return { maxTokens, thinking, outputConfig };
}

/** Store messages → API messages; consecutive messages of one role are merged (tool results join one user message). */
function toMessages(request: ProviderRequest, entry: CatalogModel): Anthropic.MessageParam[] {
  const out: Array<{ role: 'user' | 'assistant'; content: Block[] }> = [];
  const push = (role: 'user' | 'assistant', content: Block[]) => {
    if (content.length === 0) return; // the API rejects empty messages (e.g. an aborted, empty answer)
    const last = out[out.length - 1];
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  };
  for (const m of pairToolResults(request.messages)) {
    if (m.role === 'user') push('user', m.content.flatMap((b) => userBlock(b, entry)));
    else if (m.role === 'assistant') push('assistant', m.content.flatMap(assistantBlock));
    else {
      const content = m.content.flatMap((b) => userBlock(b, entry)).filter((b): b is ResultBlock => b.type === 'text' || b.type === 'image');
      push('user', [{ type: 'tool_result', tool_use_id: toolId(m.function_call_id), is_error: m.is_error, ...(content.length ? { content } : {}) }]);
    }
  }
  return out;
}

function userBlock(b: ContentBlock, entry: CatalogModel): Block[] {
  if (b.type === 'text') return b.text ? [{ type: 'text', text: b.text }] : [];
  if (b.type !== 'image') return [];
  // Ids outside the catalog get the image: the API itself says whether the model takes it.
  if (entry.known && !entry.supports.images) return [{ type: 'text', text: `(an image was omitted: ${entry.id} does not accept images)` }];
  if (!IMAGE_TYPES.has(b.mime)) return [{ type: 'text', text: `(an image of type ${b.mime} was omitted: unsupported type)` }];
  return [{ type: 'image', source: { type: 'base64', media_type: b.mime as Anthropic.Base64ImageSource['media_type'], data: b.data } }];
}

function assistantBlock(b: ContentBlock): Block[] {
  if (b.type === 'text') return b.text ? [{ type: 'text', text: b.text }] : [];
  // Unsigned thinking (another provider's, or cut off by an abort) would be rejected: leave it out.
  if (b.type === 'thinking') return b.signature ? [{ type: 'thinking', thinking: b.text, signature: b.signature }] : [];
  if (b.type === 'function_call') return [{ type: 'tool_use', id: toolId(b.id), name: b.function_id, input: argumentsObject(b.arguments) }];
  return [];
}

/** Tool ids must match ^[a-zA-Z0-9_-]+$; ids minted elsewhere (other providers, scripts) may not. */
function toolId(id: string): string {
  return id.replace(/[^a-zA-Z0-9_-]/g, '_') || 'call';
}

/** The prefill as the conversation's final assistant message (merged into one that ends it already). */
function appendAssistantText(messages: Anthropic.MessageParam[], text: string): void {
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant' && Array.isArray(last.content)) last.content.push({ type: 'text', text });
  else messages.push({ role: 'assistant', content: [{ type: 'text', text }] });
}

function markLastUserMessage(messages: Anthropic.MessageParam[]): void {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  const block = Array.isArray(last?.content) ? last.content[last.content.length - 1] : undefined;
  if (block && (block.type === 'text' || block.type === 'image' || block.type === 'tool_result')) block.cache_control = CACHE;
}

/**
 * With thinking on, the API requires the assistant message of an unfinished tool loop to begin with a
 * thinking block. A loop that started without thinking (level raised mid-turn, model switched) has
 * none, so thinking stays off until the next user message.
 */
function canStartThinking(messages: Anthropic.MessageParam[]): boolean {
  const last = messages[messages.length - 1];
  const prev = messages[messages.length - 2];
  const inToolLoop = last?.role === 'user' && Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result');
  if (!inToolLoop || prev?.role !== 'assistant' || !Array.isArray(prev.content)) return true;
  const first = prev.content[0];
  return first?.type === 'thinking' || first?.type === 'redacted_thinking';
}
