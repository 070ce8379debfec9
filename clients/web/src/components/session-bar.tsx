import { useState } from 'preact/hooks';
import { api } from '../api';
import type { ChatSession } from '../chat-session';
import { RedoButton } from './undo-controls';

function connectionText(chat: ChatSession): string {
  const c = chat.connection;
  if (c.kind === 'live') return 'live';
  if (c.kind === 'connecting') return 'connecting…';
  return `reconnecting… (${c.reason})`;
}

/** Saves text as a file, without a request: the transcript was read with the tab's token. */
function saveAs(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The open session's name and project, whether its event stream is live, its transcript, Compact
 * (between turns only) and the button that shows its settings. A job's session (`job`) is the job's to
 * run: it has no Compact, Redo or Settings here.
 */
export function SessionBar({ chat, settingsOpen, toggleSettings, job = false }: { chat: ChatSession; settingsOpen: boolean; toggleSettings: () => void; job?: boolean }) {
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const s = chat.session;
  const download = async (format: 'markdown' | 'org') => {
    try {
      const text = await api.transcript(chat.id, format);
      saveAs(`${chat.id}.${format === 'markdown' ? 'md' : 'org'}`, text, format === 'markdown' ? 'text/markdown' : 'text/plain');
      setProblem(undefined);
    } catch (err) {
      setProblem((err as Error).message);
    }
  };
  return (
    <header class="session-bar">
      <div class="session-name">
        <h1>{chat.settings?.name || s?.title || chat.id}</h1>
        <span class="project" title="Project folder">
          {s?.project_path ?? ''}
        </span>
      </div>
      <span class={`connection ${chat.connection.kind}`} role="status" aria-label="Connection">
        {connectionText(chat)}
      </span>
      <span class="transcript">
        Transcript:{' '}
        <button type="button" class="link" onClick={() => void download('markdown')}>
          Markdown
        </button>{' '}
        <button type="button" class="link" onClick={() => void download('org')}>
          Org
        </button>
      </span>
      {!job && (
        <>
          <button type="button" disabled={chat.running || chat.compacting} onClick={() => void chat.compact()} title="Summarise the older conversation now, to free context (between turns only)">
            Compact
          </button>
          <RedoButton chat={chat} />
          <button type="button" aria-expanded={settingsOpen} aria-controls="session-settings" onClick={toggleSettings}>
            Settings
          </button>
        </>
      )}
      {problem && <span class="problem">{problem}</span>}
    </header>
  );
}
