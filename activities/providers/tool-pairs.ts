import type { ProviderMessage } from './types';

/**
 * Both APIs reject a context in which a tool call has no result before the next message, or a result
 * answers no call (HTTP 400 on every retry). Such contexts happen: a turn that crashed between
 * recording the calls and their results, an abort, a hand-edited branch. This repairs them the way
 * the model can understand: a missing result becomes an error result saying the call was
 * interrupted, and an orphan result is dropped.
 */
export function pairToolResults(messages: ProviderMessage[]): ProviderMessage[] {
  const out: ProviderMessage[] = [];
  let pending = new Map<string, string>(); // call id → tool name, of the last assistant message
  const flush = () => {
    for (const [id, name] of pending) out.push(interrupted(id, name));
    pending = new Map();
  };
  for (const m of messages) {
    if (m.role === 'function_result') {
      if (!pending.has(m.function_call_id)) continue;
      pending.delete(m.function_call_id);
      out.push(m);
      continue;
    }
    flush();
    out.push(m);
    if (m.role === 'assistant') {
      for (const b of m.content) if (b.type === 'function_call') pending.set(b.id, b.function_id);
    }
  }
  flush();
  return out;
}

function interrupted(id: string, name: string): ProviderMessage {
  return {
    role: 'function_result',
    function_call_id: id,
    function_id: name,
    content: [{ type: 'text', text: 'No result was recorded for this call: it was interrupted before it finished.' }],
    is_error: true,
  };
}
