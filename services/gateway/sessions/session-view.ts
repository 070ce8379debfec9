import type { SessionLiveView } from '../../../contracts/session-live-view';
import type { AgentPhase } from '../../../contracts/agent-phase';
import { readSessionRecord } from '../../../contracts/session-record';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import type { Budget } from '../../../contracts/session-settings';

/** A session as every protocol describes it: store facts plus the workflow's live state. */
export interface SessionView {
  session_id: string;
  /** `active` while the session's workflow runs, `dormant` once it idled out (it comes back on the next command). */
  status: 'active' | 'dormant';
  agent_state: AgentPhase;
  project_path: string;
  model: string;
  thinking_level: string;
  queue_length: number;
  active_turn: string | null;
  message_count: number;
  started_at: number;
  updated_at: number;
  title: string;
  name?: string;
  /** The session's spending caps, when it has any (docs/budgets.md). */
  budget?: Budget;
  /** What it has spent (the list shows it against the caps). */
  spent?: { cost_usd: number; tokens: number };
}

/** A session in a list: also `unknown` (with `status_reason`) when Temporal could not say; the list never fails for one session. */
export type ListedSessionView = Omit<SessionView, 'status' | 'agent_state'> & { status: SessionView['status'] | 'unknown'; status_reason?: string; agent_state: AgentPhase | 'unknown' };

/** What Temporal said of the session: its live view, dormant (no open run), or unknown with why. */
export type LiveState = { status: 'active'; view: SessionLiveView } | { status: 'dormant' } | { status: 'unknown'; reason: string };

/**
 * The view of a session from its store record and, when its workflow runs, the view it keeps
 * (contracts/session-live-view.ts). Without a running workflow (or before a fresh run has loaded its
 * record) the settings are what readSessionRecord decodes, which is what the workflow loads when it
 * comes back. Unknown: the stored facts, with the live ones marked unknown.
 */
export function listedSessionView(meta: SessionMeta, live: LiveState): ListedSessionView {
  const record = readSessionRecord(meta.metadata);
  const state = live.status === 'active' ? live.view : undefined;
  const settings = state?.settings ?? record.settings;
  return {
    session_id: meta.session_id,
    status: live.status,
    ...(live.status === 'unknown' ? { status_reason: live.reason } : {}),
    agent_state: live.status === 'unknown' ? 'unknown' : (state?.phase ?? 'idle'),
    project_path: record.project_path,
    model: settings.model,
    thinking_level: settings.thinking_level,
    queue_length: state?.queue.length ?? 0,
    active_turn: state?.active_turn ?? null,
    message_count: meta.message_count,
    started_at: meta.created_at,
    updated_at: meta.updated_at,
    title: meta.title,
    ...(settings.name ? { name: settings.name } : {}),
    ...(settings.budget ? { budget: settings.budget } : {}),
  };
}

/** One session read (`undefined`: no open run): always active or dormant, since a failed read fails the call. */
export function sessionView(meta: SessionMeta, view: SessionLiveView | undefined): SessionView {
  const { status_reason: _none, ...listed } = listedSessionView(meta, view ? { status: 'active', view } : { status: 'dormant' });
  return { ...listed, status: view ? 'active' : 'dormant', agent_state: view?.phase ?? 'idle' };
}
