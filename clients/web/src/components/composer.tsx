import { useRef, useState } from 'preact/hooks';
import type { ChatSession } from '../chat-session';
import type { PromptImage } from '../api';

type Attached = PromptImage & { name: string; bytes: number };

/** The types every image-capable provider takes (contracts/prompt-images.ts); the gateway checks the rest. */
const IMAGE_TYPES = 'image/png,image/jpeg,image/gif,image/webp';

/** A file as base64 (the data URL's payload), read by the browser. */
function readAttached(file: File): Promise<Attached> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve({ name: file.name, bytes: file.size, media_type: file.type, data: String(reader.result).replace(/^data:[^,]*,/, '') });
    reader.onerror = () => reject(reader.error ?? new Error(`could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1024 * 1024)).toFixed(1)} MiB`);

/**
 * The message box. Enter sends, Shift-Enter starts a new line, Esc stops the running turn (chat-pane.tsx).
 * While a turn runs, Send queues the message as a follow-up, and Steer hands it to the running turn's
 * next model step instead. Attach image adds images to the prompt (docs/images.md); they are sent with
 * the next Send, and the gateway's refusal (too large, a model without image support) is shown as any
 * refused prompt is. `locked`: no prompt may be sent here (a job's session), and the sentence says why.
 */
export function Composer({ chat, locked }: { chat: ChatSession; locked?: string }) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [images, setImages] = useState<Attached[]>([]);
  const box = useRef<HTMLTextAreaElement>(null);
  const running = chat.running && !locked;

  const submit = async (how: 'send' | 'steer') => {
    const message = text;
    if (!message.trim() || sending || locked) return;
    setSending(true);
    const ok = how === 'send' ? await chat.send(message, images) : await chat.steer(message);
    setSending(false);
    if (ok) setText('');
    if (ok && how === 'send') setImages([]);
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
      {locked && (
        <p id="composer-locked" class="hint locked">
          {locked}
        </p>
      )}
      <textarea
        id="message"
        ref={box}
        rows={3}
        placeholder={locked ? 'No prompts here' : running ? 'A follow-up (queued), or steer the running turn…' : 'Ask the agent… (Enter sends, Shift-Enter for a new line)'}
        value={text}
        disabled={!!locked}
        aria-describedby={locked ? 'composer-locked' : undefined}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
            e.preventDefault();
            void submit('send');
          }
        }}
        autofocus={!locked}
      />
      {images.length > 0 && (
        <ul class="attachments" aria-label="Attached images">
          {images.map((image, i) => (
            <li key={`${image.name}:${i}`}>
              {image.name} ({size(image.bytes)})
              <button type="button" aria-label={`Remove ${image.name}`} onClick={() => setImages(images.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="composer-buttons">
        <label class={`attach${locked ? ' disabled' : ''}`}>
          Attach image
          <input
            type="file"
            disabled={!!locked}
            accept={IMAGE_TYPES}
            multiple
            onChange={async (e) => {
              const input = e.currentTarget;
              const files = [...(input.files ?? [])];
              input.value = '';
              const read = await Promise.all(files.map(readAttached));
              setImages((had) => [...had, ...read]);
            }}
          />
        </label>
        <button type="submit" class="primary" disabled={sending || !text.trim() || !!locked}>
          Send
        </button>
        {running && (
          <button
            type="button"
            disabled={sending || !text.trim() || images.length > 0}
            onClick={() => void submit('steer')}
            title={images.length ? 'Steering takes text only: send the images with a prompt' : "Give this to the running turn's next model step"}
          >
            Steer
          </button>
        )}
        <button type="button" class="danger" disabled={!running} hidden={!!locked} onClick={() => void chat.stop()} title="Stop the running turn (Esc)">
          Stop
        </button>
      </div>
    </form>
  );
}
