import { useEffect, useState } from 'preact/hooks';
import type { ChatSession } from './chat-session';

/** Draws the component again whenever the session changes (its listeners are batched). */
export function useChat(chat: ChatSession): number {
  const [version, setVersion] = useState(0);
  useEffect(() => chat.subscribe(() => setVersion((v) => v + 1)), [chat]);
  return version;
}
