/**
 * Calls `onCancel` when `signal` aborts (an activity cancelled, a tool call stopped), or at once when
 * it already has. An activity links its cancellation to what it runs (a provider stream, a tool) only
 * after its first awaits (store and ledger reads); an `abort` listener added after the cancellation
 * arrived never fires, and the step then ran to its natural end (a sub-agent's 60 s answer after its
 * parent's abort). Returns the unsubscribe.
 */
export function abortOnCancel(signal: AbortSignal, onCancel: () => void): () => void {
  if (signal.aborted) {
    onCancel();
    return () => undefined;
  }
  signal.addEventListener('abort', onCancel, { once: true });
  return () => signal.removeEventListener('abort', onCancel);
}
