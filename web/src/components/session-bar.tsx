import { useState } from 'preact/hooks';
import { api } from '../api';
import type { ChatSession } from '../chat-session';

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

/** The open session's title and project, whether its event stream is live, and its transcript. */
export function SessionBar({ chat }: { chat: ChatSession }) {
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
        <h1>{s?.title || chat.id}</h1>
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
      {problem && <span class="problem">{problem}</span>}
    </header>
  );
}
