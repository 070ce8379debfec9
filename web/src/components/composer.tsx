import { useRef, useState } from 'preact/hooks';
import type { ChatSession } from '../chat-session';

/**
 * The message box. Enter sends, Shift-Enter starts a new line, Esc stops the running turn (chat-pane.tsx).
 * While a turn runs, Send queues the message as a follow-up, and Steer hands it to the running turn's
 * next model step instead.
 */
export function Composer({ chat }: { chat: ChatSession }) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const box = useRef<HTMLTextAreaElement>(null);
  const running = chat.running;

  const submit = async (how: 'send' | 'steer') => {
    const message = text;
    if (!message.trim() || sending) return;
    setSending(true);
    const ok = how === 'send' ? await chat.send(message) : await chat.steer(message);
    setSending(false);
    if (ok) setText('');
    box.current?.focus();
  };

  return (
    <form
      class="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit('send');
      }}
    >
      <label class="visually-hidden" for="message">
        Message
      </label>
      <textarea
        id="message"
        ref={box}
        rows={3}
        placeholder={running ? 'A follow-up (queued), or steer the running turn…' : 'Ask the agent… (Enter sends, Shift-Enter for a new line)'}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void submit('send');
          }
        }}
        autofocus
      />
      <div class="composer-buttons">
        <button type="submit" class="primary" disabled={sending || !text.trim()}>
          Send
        </button>
        {running && (
          <button type="button" disabled={sending || !text.trim()} onClick={() => void submit('steer')} title="Give this to the running turn's next model step">
            Steer
          </button>
        )}
        <button type="button" class="danger" disabled={!running} onClick={() => void chat.stop()} title="Stop the running turn (Esc)">
          Stop
        </button>
      </div>
    </form>
  );
}
