import { useState } from 'preact/hooks';
import type { JobFacts } from '../../../core/job-calls';
import { api, type ListedSession } from '../api';
import { openSession } from '../address';
import { JobList } from './job-list';

const PROJECT_KEY = 'strand.project';
const lastProject = () => {
  try {
    return localStorage.getItem(PROJECT_KEY) ?? '';
  } catch {
    return '';
  }
};

/** The name given in the settings, else the title (the first prompt), else the id. */
const sessionLabel = (s: ListedSession) => s.name || s.title || s.session_id;

/** Sessions grouped by project, the most recently used project and session first. */
function byProject(sessions: ListedSession[]): Array<[string, ListedSession[]]> {
  const groups = new Map<string, ListedSession[]>();
  for (const s of [...sessions].sort((a, b) => b.updated_at - a.updated_at)) {
    const list = groups.get(s.project_path) ?? [];
    list.push(s);
    groups.set(s.project_path, list);
  }
  return [...groups.entries()];
}

/**
 * The left column: a new session in a project folder, the caller's jobs (job-list.tsx), and the
 * caller's other sessions by project (open, delete). A listed job's session is shown as its job only.
 * Deleting asks once more in place rather than in a dialog.
 */
export function SessionList(props: { sessions: ListedSession[] | undefined; jobs: JobFacts[] | undefined; problem: string | undefined; currentId: string | undefined; reload: () => Promise<void> }) {
  const current = props.sessions?.find((s) => s.session_id === props.currentId);
  const jobSessions = new Set((props.jobs ?? []).map((j) => j.session_id));
  const sessions = props.sessions?.filter((s) => !jobSessions.has(s.session_id));
  const [project, setProject] = useState(lastProject());
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [confirming, setConfirming] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  const create = async (e: Event) => {
    e.preventDefault();
    const path = (project || current?.project_path || '').trim();
    if (!path) return setProblem('type the path of a project folder first');
    setBusy(true);
    try {
      const created = await api.createSession(path);
      try {
        localStorage.setItem(PROJECT_KEY, path);
      } catch {
        // Only a convenience.
      }
      setProblem(undefined);
      await props.reload();
      openSession(created.session_id);
    } catch (err) {
      setProblem((err as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const remove = async (s: ListedSession) => {
    setConfirming(undefined);
    try {
      await api.deleteSession(s.session_id);
      if (s.session_id === props.currentId) openSession(undefined);
      await props.reload();
    } catch (err) {
      setProblem((err as Error).message);
    }
  };

  return (
    <nav class="sidebar" aria-label="Sessions">
      <form class="new-session" onSubmit={create}>
        <label for="project-path">Project folder</label>
        <input id="project-path" type="text" placeholder={current?.project_path ?? '/path/to/project'} value={project} onInput={(e) => setProject(e.currentTarget.value)} spellcheck={false} />
        <button type="submit" disabled={busy}>
          New session
        </button>
      </form>
      {(problem ?? props.problem) && (
        <p class="problem" role="alert">
          {problem ?? props.problem}
        </p>
      )}
      <JobList jobs={props.jobs} currentId={props.currentId} />
      {sessions === undefined && !props.problem && <p class="hint">Loading sessions…</p>}
      {sessions?.length === 0 && <p class="hint">No sessions yet.</p>}
      {byProject(sessions ?? []).map(([path, list]) => (
        <section class="project" key={path}>
          <h2 title={path}>
            <bdi>{path}</bdi>
          </h2>
          <ul>
            {list.map((s) => (
              <li key={s.session_id} class={s.session_id === props.currentId ? 'current' : ''}>
                <a href={`#session=${encodeURIComponent(s.session_id)}`} aria-current={s.session_id === props.currentId ? 'page' : undefined} title={s.session_id}>
                  <span class="session-title">{sessionLabel(s)}</span>
                  <span class="session-meta">
                    {s.message_count} messages{s.active_turn ? ' · running' : ''}
                    {s.status === 'dormant' ? ' · dormant' : ''}
                    {s.status === 'unknown' ? ' · state unknown' : ''}
                  </span>
                </a>
                {confirming === s.session_id ? (
                  <span class="confirm">
                    <button type="button" class="danger" onClick={() => void remove(s)}>
                      Confirm delete
                    </button>
                    <button type="button" onClick={() => setConfirming(undefined)}>
                      Keep
                    </button>
                  </span>
                ) : (
                  <button type="button" class="icon" aria-label={`Delete ${sessionLabel(s)}`} title="Delete this session" onClick={() => setConfirming(s.session_id)}>
                    ✕
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </nav>
  );
}
