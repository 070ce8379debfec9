import { useState } from 'preact/hooks';
import { api } from '../api';
import { openSession } from '../address';
import type { ChatSession } from '../chat-session';

/**
 * A new session holding the conversation up to this message, prompt or answer (the store's fork of
 * `POST …/fork`, at the message's entry); it opens at once.
 */
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
      <button type="button" class="link" title="A new session holding the conversation up to this message" onClick={() => void fork()}>
        Fork from here
      </button>
      {problem && <span class="problem">{problem}</span>}
    </span>
  );
}
