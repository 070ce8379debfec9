import type { SessionSettings } from '../../../contracts/session-settings';
import type { ForkPoint } from '../../terminal/fork-points';
import type { RevertRequest } from '../../../contracts/checkpoints';
import type { ListedSession, RevertReply, SessionStats, SessionView, PendingApproval, StoredMessageItem } from '../../terminal/gateway-client';
import { tokenStore } from './token';

/** An image attached to a prompt, as `POST …/prompt` takes it. */
export interface PromptImage {
  media_type: string;
  data: string;
}

/**
 * The REST half of the HTTP protocol (docs/http.md) as the page uses it, against the origin it was
 * loaded from. With tokens configured every call carries the tab's token; a 401 is reported to the
 * page (onUnauthorized) so it asks for one.
 */

/** An answer of the gateway that is not a success: its status and the error body's code. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The error body's `details` (a revert conflict's `paths`). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export type { ListedSession, SessionSettings, SessionStats, SessionView, PendingApproval, StoredMessageItem };

import type { SettingsPatch } from './settings-state';

export type { SettingsPatch };

/** Called on every 401: the token is missing or refused. */
let onUnauthorized: () => void = () => undefined;
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

export function authHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const token = tokenStore.get();
  return { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra };
}

async function call<T>(method: string, route: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(route, {
      method,
      headers: authHeaders(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'UNREACHABLE', 'the gateway did not answer');
  }
  const text = await res.text();
  let parsed: unknown = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    parsed = { error: { code: `HTTP_${res.status}`, message: text.slice(0, 200) } };
  }
  if (res.status === 401) onUnauthorized();
  if (!res.ok) {
    const error = (parsed as { error?: { code?: string; message?: string; details?: Record<string, unknown> } }).error;
    throw new ApiError(res.status, error?.code ?? `HTTP_${res.status}`, error?.message ?? `${method} ${route} answered ${res.status}`, error?.details);
  }
  return parsed as T;
}

const sid = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;

export const api = {
  sessions: () => call<{ sessions: ListedSession[] }>('GET', '/api/sessions?limit=200').then((r) => r.sessions),
  createSession: (projectPath: string) => call<{ session_id: string }>('POST', '/api/sessions', { project_path: projectPath }),
  session: (id: string) => call<SessionView>('GET', sid(id)),
  deleteSession: (id: string) => call<{ status: string }>('DELETE', sid(id)),
  resume: (id: string) => call<{ status: string }>('POST', `${sid(id)}/resume`),
  /** Files back to before a turn and the conversation with them, or the last revert redone (docs/undo.md). */
  revert: (id: string, request: RevertRequest) => call<RevertReply>('POST', `${sid(id)}/revert`, request),
  fork: (id: string, entryId: string) => call<{ session_id: string }>('POST', `${sid(id)}/fork`, { entry_id: entryId }),
  stats: (id: string) => call<SessionStats>('GET', `${sid(id)}/stats`),
  /** Every stored message of the active branch, oldest first (all pages). */
  async messages(id: string): Promise<StoredMessageItem[]> {
    const all: StoredMessageItem[] = [];
    let cursor: string | undefined;
    do {
      const page = await call<{ messages: StoredMessageItem[]; next_cursor?: string }>('GET', `${sid(id)}/messages?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      all.push(...page.messages);
      cursor = page.next_cursor;
    } while (cursor);
    return all;
  },
  /** The prompts of the active branch, oldest first (what a turn started elsewhere is read from: fork-points.ts). */
  forkPoints: (id: string) => call<{ messages: ForkPoint[] }>('GET', `${sid(id)}/fork-points`).then((r) => r.messages),
  /** Queued as a follow-up while a turn runs (never 409). */
  /** `images`: base64 with their media types (docs/images.md); the gateway checks them and the model's support. */
  prompt: (id: string, text: string, requestId: string, images: PromptImage[] = []) =>
    call<{ turn_id: string; queued: boolean; queue_position?: number }>('POST', `${sid(id)}/prompt?queue=1`, { text, request_id: requestId, ...(images.length ? { images } : {}) }),
  steer: (id: string, text: string) => call('POST', `${sid(id)}/steer`, { text }),
  interrupt: (id: string) => call('POST', `${sid(id)}/interrupt`, {}),
  approvals: (id: string) => call<{ approvals: PendingApproval[] }>('GET', `${sid(id)}/approvals`).then((r) => r.approvals),
  approve: (id: string, toolCallId: string, always: boolean) => call('POST', `${sid(id)}/approve`, { tool_call_id: toolCallId, ...(always ? { always: true } : {}) }),
  reject: (id: string, toolCallId: string, reason: string) => call('POST', `${sid(id)}/reject`, { tool_call_id: toolCallId, ...(reason ? { reason } : {}) }),
  setModel: (id: string, provider: string, modelId: string) => call<{ model: string; notice?: string }>('POST', `${sid(id)}/model`, { provider, model_id: modelId }),
  setThinking: (id: string, level: string) => call<{ thinking_level: string }>('POST', `${sid(id)}/thinking`, { level }),
  settings: (id: string) => call<SessionSettings>('GET', `${sid(id)}/settings`),
  changeSettings: (id: string, patch: SettingsPatch) => call<SessionSettings>('PATCH', `${sid(id)}/settings`, patch),
  /** Answers once the summary is recorded (a model call); `compacted: false` when nothing was old enough. */
  compact: (id: string) => call<{ compacted: boolean; summary: string }>('POST', `${sid(id)}/compact`, {}),
  status: () => call<{ provider_auth?: string[]; model?: string }>('GET', '/v1/status'),
  /** The transcript as the gateway renders it. */
  async transcript(id: string, format: 'markdown' | 'org'): Promise<string> {
    const res = await fetch(`${sid(id)}/transcript?format=${format}`, { headers: authHeaders() });
    if (res.status === 401) onUnauthorized();
    if (!res.ok) throw new ApiError(res.status, `HTTP_${res.status}`, (await res.text()).slice(0, 300));
    return res.text();
  },
};
