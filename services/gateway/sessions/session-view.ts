import type { SessionSnapshot } from '../../../contracts/session-workflow';
import { readSessionRecord } from '../../../contracts/session-record';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import type { Budget } from '../../../contracts/session-settings';

/** A session as every protocol describes it: store facts plus the workflow's live state. */
export interface SessionView {
  session_id: string;
  /** `active` while the session's workflow runs, `dormant` once it idled out (it comes back on the next command). */
  status: 'active' | 'dormant';
  agent_state: SessionSnapshot['phase'];
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

/**
 * The view of a session from its store record and, when its workflow runs, the workflow's state.
 * Without a running workflow (or before a fresh run has loaded its record) the settings are what
 * readSessionRecord decodes, which is what the workflow loads when it comes back.
 */
export function sessionView(meta: SessionMeta, state: SessionSnapshot | undefined): SessionView {
  const record = readSessionRecord(meta.metadata);
  const settings = state?.settings ?? record.settings;
  return {
    session_id: meta.session_id,
    status: state ? 'active' : 'dormant',
    agent_state: state?.phase ?? 'idle',
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
