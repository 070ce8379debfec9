import { useState } from 'preact/hooks';
import { api } from '../api';
import { openSession } from '../address';
import type { ChatSession } from '../chat-session';

/** A new session holding the conversation up to this prompt (the store's fork); it opens at once. */
export function ForkButton({ chat, entryId }: { chat: ChatSession; entryId: string }) {
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const fork = async () => {
    try {
      const { session_id } = await api.fork(chat.id, entryId);
      openSession(session_id);
    } catch (err) {
      setProblem((err as Error).message);
    }
  };
  return (
    <span class="fork">
      <button type="button" class="link" title="A new session holding the conversation up to this prompt" onClick={() => void fork()}>
        Fork from here
      </button>
      {problem && <span class="problem">{problem}</span>}
    </span>
  );
}
