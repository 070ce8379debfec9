import type { ContentBlock, Message, StopReason, Usage } from '../../../../contracts/session-store/messages';
import { kw, type EdnMap, type EdnValue } from '../edn-value';

/**
 * Transcript content in the shapes psi's Emacs client reads (its "agent messages"): content blocks
 * with a keyword `:type` (`:text`, `:thinking`, `:tool-call`, `:image`, `:tool-result`), roles
 * "user", "assistant", "toolResult" and "custom", kebab-case keys, ISO timestamps. Tool arguments
 * travel as a JSON string (as psi sends them), so no argument key ever has to become a keyword.
 */

/** Longest argument summary shown in a tool row's header or a dialog. */
const SUMMARY_MAX = 120;

export const iso = (ms: number): string => new Date(ms).toISOString();

/** The text blocks joined: what a plain client shows of a message. */
export const textOfBlocks = (blocks: readonly ContentBlock[]): string => blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');

/** A value as JSON text (tool arguments, structured results); a string stays as it is. */
export function jsonText(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v ?? {}) ?? '';
  } catch {
    return String(v);
  }
}

function blockToEdn(b: ContentBlock): EdnMap {
  switch (b.type) {
    case 'text':
      return { type: kw('text'), text: b.text };
    case 'thinking':
      return { type: kw('thinking'), text: b.text };
    case 'image':
      return { type: kw('image'), 'mime-type': b.mime, data: b.data };
    case 'function_call':
      return { type: kw('tool-call'), id: b.id, name: b.function_id, arguments: jsonText(b.arguments ?? {}) };
    case 'function_result':
      return { type: kw('tool-result'), 'tool-call-id': b.function_call_id, content: b.content.map(blockToEdn), 'is-error': b.is_error === true };
  }
}

export const contentToEdn = (blocks: readonly ContentBlock[]): EdnMap[] => blocks.map(blockToEdn);

/** psi's stop reasons: `:stop :length :tool-use :aborted :error`. */
export function stopReasonKeyword(reason: StopReason): EdnValue {
  const names: Record<StopReason, string> = { end: 'stop', length: 'length', function_call: 'tool-use', aborted: 'aborted', error: 'error' };
  return kw(names[reason]);
}

export function usageToEdn(u: Usage | { input?: number; output?: number; cache_read?: number; cache_write?: number; cost_usd?: number } | null | undefined): EdnMap {
  const input = u?.input ?? 0;
  const output = u?.output ?? 0;
  const cacheRead = u?.cache_read ?? 0;
  const cacheWrite = u?.cache_write ?? 0;
  return { input, output, 'cache-read': cacheRead, 'cache-write': cacheWrite, 'total-tokens': input + output + cacheRead + cacheWrite, 'cost-usd': u?.cost_usd ?? 0 };
}

/** One stored message as an agent message the client replays (`get_messages`, `session/rehydrated`). */
export function messageToEdn(m: Message, entryId?: string): EdnMap {
  const base: EdnMap = { ...(entryId ? { 'entry-id': entryId } : {}), timestamp: iso(m.timestamp) };
  const text = textOfBlocks(m.content);
  switch (m.role) {
    case 'user':
      return { ...base, role: 'user', content: contentToEdn(m.content), ...(text ? { text } : {}) };
    case 'assistant':
      return {
        ...base,
        role: 'assistant',
        content: contentToEdn(m.content),
        ...(text ? { text } : {}),
        'stop-reason': stopReasonKeyword(m.stop_reason),
        provider: m.provider,
        model: m.model,
        ...(m.usage ? { usage: usageToEdn(m.usage) } : {}),
        ...(m.error_message ? { 'error-message': m.error_message } : {}),
      };
    case 'function_result':
      return { ...base, role: 'toolResult', 'tool-call-id': m.function_call_id, 'tool-name': m.function_id, content: contentToEdn(m.content), 'is-error': m.is_error };
    case 'custom':
      return { ...base, role: 'custom', 'custom-type': m.custom_type, content: contentToEdn(m.content), ...(m.display ? { text: m.display } : {}) };
  }
}

/** What a tool call works on, in one line: its command, path or pattern, else its arguments as JSON. */
export function argsSummary(params: unknown): string {
  const args = params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : { value: params };
  for (const key of ['command', 'path', 'pattern']) {
    const v = args[key];
    if (typeof v === 'string' && v.trim()) return clip(v.trim());
  }
  const json = jsonText(args);
  return json === '{}' ? '' : clip(json);
}

/** A tool row's header: the tool and what it works on. */
export const callSummary = (tool: string, params: unknown): string => [tool, argsSummary(params)].filter(Boolean).join(' ');

function clip(s: string): string {
  const line = s.replace(/\s+/g, ' ');
  return line.length > SUMMARY_MAX ? `${line.slice(0, SUMMARY_MAX - 1)}…` : line;
}
