import type { SessionSettings } from '../../../../contracts/session-settings';
import { sessionUpdatedPayload } from '../../mapping/edn-events';
import type { SessionRef, SessionService, SessionView } from '../../sessions/session-service';
import type { ListedSessionView } from '../../sessions/session-view';
import type { SessionStats } from '../../sessions/session-stats';
import { readTranscript, type TranscriptItem } from '../../sessions/session-transcript';
import type { EdnMap } from '../edn-value';
import { iso } from './content';
import { footerPayload } from './footer';

/**
 * What one request reads about one session, each fact read at most once and only when asked for:
 * the view (store + live state), the persisted settings, the usage stats and the transcript, all
 * through one SessionRef (the session read and its owner checked once). The snapshots (`session/updated`, `footer/updated`, `context/updated`) and EQL resolvers are built
 * from it.
 */
export class SessionFacts {
  private readonly cache = new Map<string, Promise<unknown>>();

  constructor(
    readonly sessions: SessionService,
    readonly sessionId: string,
    readonly principal?: string,
  ) {}

  private memo<T>(key: string, read: () => Promise<T>): Promise<T> {
    let got = this.cache.get(key) as Promise<T> | undefined;
    if (!got) this.cache.set(key, (got = read()));
    return got;
  }

  private session(): Promise<SessionRef> {
    return this.memo('session', () => this.sessions.open(this.sessionId, this.principal));
  }

  view(): Promise<SessionView> {
    return this.memo('view', async () => (await this.session()).describe());
  }

  settings(): Promise<SessionSettings | undefined> {
    return this.memo('settings', async () => (await this.session()).storedSettings());
  }

  stats(): Promise<SessionStats & { model: string }> {
    return this.memo('stats', async () => (await this.session()).stats());
  }

  transcript(): Promise<TranscriptItem[]> {
    return this.memo('transcript', async () => readTranscript(await this.session()));
  }

  pendingApprovals() {
    return this.memo('approvals', async () => (await this.session()).pendingApprovals());
  }

  /** The session's name: the one set with set_session_name, else none (psi shows the id then). */
  async name(): Promise<string | undefined> {
    return (await this.settings())?.name;
  }
}

export async function sessionUpdatedSnapshot(f: SessionFacts): Promise<EdnMap> {
  const [view, settings] = await Promise.all([f.view(), f.settings()]);
  return sessionUpdatedPayload(f.sessionId, {
    phase: view.agent_state,
    turnActive: view.active_turn !== null,
    queueLength: view.queue_length,
    retryAttempt: 0,
    model: view.model,
    thinkingLevel: view.thinking_level,
    ...(settings?.name ? { sessionName: settings.name } : {}),
    ...(settings ? { autoRetry: settings.auto_retry, autoCompaction: settings.auto_compaction } : {}),
  });
}

export async function footerSnapshot(f: SessionFacts): Promise<EdnMap> {
  const [view, settings, stats] = await Promise.all([f.view(), f.settings(), f.stats()]);
  return footerPayload({
    sessionId: f.sessionId,
    projectPath: view.project_path,
    ...(settings?.name ? { sessionName: settings.name } : {}),
    model: view.model,
    thinkingLevel: view.thinking_level,
    usage: stats.usage,
    context: stats.context,
    ...(view.agent_state === 'waiting_approval' ? { status: 'waiting for a tool approval' } : {}),
  });
}

/** psi's runtime states of a session slot. */
function runtimeState(view: ListedSessionView): string {
  if (view.agent_state === 'retrying' || view.agent_state === 'compacting' || view.agent_state === 'unknown') return view.agent_state;
  return view.active_turn ? 'running' : 'waiting';
}

/** A session as `context/updated` and `list_sessions` list it. */
export function sessionSlot(view: ListedSessionView, activeId: string): EdnMap {
  const state = runtimeState(view);
  return {
    id: view.session_id,
    'session-id': view.session_id,
    'item-kind': 'session',
    name: view.title,
    'display-name': view.title,
    'worktree-path': view.project_path,
    'runtime-state': state,
    'is-streaming': state === 'running',
    'is-active': view.session_id === activeId,
    'parent-session-id': null,
    'message-count': view.message_count,
    'created-at': iso(view.started_at),
    'updated-at': iso(view.updated_at),
  };
}

/** How many sessions `context/updated` lists (newest first): a picker, not an archive. */
const CONTEXT_SESSIONS = 20;

/** The focus session's project's sessions (the caller's only), the focus among them. */
export async function contextSnapshot(f: SessionFacts): Promise<EdnMap> {
  const view = await f.view();
  const page = await f.sessions.list({ limit: CONTEXT_SESSIONS, project: view.project_path }, f.principal);
  const sessions = page.sessions.some((s) => s.session_id === f.sessionId) ? page.sessions : [view, ...page.sessions];
  return { 'session-id': f.sessionId, 'active-session-id': f.sessionId, sessions: sessions.map((s) => sessionSlot(s, f.sessionId)) };
}
