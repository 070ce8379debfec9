import { COMPACTION_CUSTOM_TYPE, compactionDataSchema, type CompactionData } from '../../contracts/compaction';
import type { StorePort } from '../store/store-port';
import { storeCall } from '../store/store-failures';
import type { ProviderMessage } from './types';

/** Page size when reading the active path; the store clamps it to its own maximum. */
const PAGE = 500;

/** One entry of the active path, as the context builder and compaction see it. */
export interface PathItem {
  entry_id: string;
  message?: ProviderMessage;
  compaction?: CompactionData;
  /** When the message was written (epoch ms, the writer's clock); absent for other entries. */
  timestamp?: number;
}

/** The session's active path, oldest first: conversation messages and compaction records. */
export async function readActivePath(store: StorePort, sessionId: string): Promise<PathItem[]> {
  const out: PathItem[] = [];
  let cursor: string | undefined;
  do {
    const page = await storeCall(`reading the conversation of ${sessionId}`, () =>
      store.messages({ session_id: sessionId, limit: PAGE, include_custom: true, ...(cursor ? { cursor } : {}) }),
    );
    if (!page) break;
    for (const item of page.messages) {
      const m = item.message;
      if (m?.role === 'user' || m?.role === 'assistant') out.push({ entry_id: item.entry_id, message: { role: m.role, content: m.content }, timestamp: m.timestamp });
      else if (m?.role === 'function_result') {
        const message: ProviderMessage = { role: 'function_result', function_call_id: m.function_call_id, function_id: m.function_id, content: m.content, is_error: m.is_error ?? false };
        out.push({ entry_id: item.entry_id, message, timestamp: m.timestamp });
      } else if (item.custom?.custom_type === COMPACTION_CUSTOM_TYPE) {
        const data = compactionDataSchema.safeParse(item.custom.data);
        if (data.success) out.push({ entry_id: item.entry_id, compaction: data.data });
      }
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return out;
}

/**
 * The path with the turn's prompt as its newest entry: as read when the read saw it (anywhere: a
 * retried step finds it stored by an earlier attempt), else appended, as the store appends it (to the
 * active leaf). For a read made while the prompt's append was in flight.
 */
export function withPrompt(path: PathItem[], prompt: PathItem): PathItem[] {
  return path.some((p) => p.entry_id === prompt.entry_id) ? path : [...path, prompt];
}

/** The summary as the model sees it, in place of the conversation it replaces. */
export function summaryMessage(c: CompactionData): ProviderMessage {
  const files = [
    c.files_read.length ? `Files read: ${c.files_read.join(', ')}` : '',
    c.files_modified.length ? `Files modified: ${c.files_modified.join(', ')}` : '',
  ].filter(Boolean);
  const text = ['[The earlier part of this conversation was compacted. Summary:]', c.summary, ...files].join('\n\n');
  return { role: 'user', content: [{ type: 'text', text }] };
}

/**
 * The provider context of a path: every message as stored, except that the newest compaction record
 * replaces everything before its first kept entry with its summary.
 */
export function contextOf(path: PathItem[]): ProviderMessage[] {
  let at = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]!.compaction) {
      at = i;
      break;
    }
  }
  if (at < 0) return path.flatMap((p) => (p.message ? [p.message] : []));
  const c = path[at]!.compaction!;
  const firstKept = path.findIndex((p) => p.entry_id === c.first_kept_entry_id);
  const kept = firstKept >= 0 && firstKept < at ? path.slice(firstKept, at) : [];
  return [summaryMessage(c), ...[...kept, ...path.slice(at + 1)].flatMap((p) => (p.message ? [p.message] : []))];
}

/** Reads the active path and builds the provider context from it (design: transcripts live in the store). */
export async function buildProviderContext(store: StorePort, sessionId: string): Promise<ProviderMessage[]> {
  return contextOf(await readActivePath(store, sessionId));
}
