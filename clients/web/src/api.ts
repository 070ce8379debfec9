import type { SessionSettings } from '../../../contracts/session-settings';
import type { ForkPoint } from '../../core/prompt-reader';
import type { RevertRequest } from '../../../contracts/checkpoints';
import type { ListedSession, RevertReply, SessionStats, SessionView, PendingApproval, StoredMessageItem } from '../../terminal/gateway-client';
import type { ModelsReply } from '../../../contracts/http-replies';
import { ApiClient } from '../../core/api-client';
import type { SettingsPatch } from './settings-state';
import { tokenStore } from './token';

/** An image attached to a prompt, as `POST …/prompt` takes it. */
export interface PromptImage {
  media_type: string;
  data: string;
}

/**
 * The REST half of the HTTP protocol (docs/http.md) as the page uses it, against the origin it was
 * loaded from, over the clients' one API client (clients/core/api-client.ts: JSON, ApiError, status 0
 * ApiUnreachable when the gateway does not answer). With tokens configured every call carries the
 * tab's token; a 401 is reported to the page (whenUnauthorized) so it asks for one.
 */

export { ApiError } from '../../core/api-client';
export type { ListedSession, SessionSettings, SessionStats, SessionView, PendingApproval, StoredMessageItem };
export type { SettingsPatch };

/** Called on every 401: the token is missing or refused. */
let onUnauthorized: () => void = () => undefined;
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

/** The page's client: same origin, the tab's token read at each request. */
export const gateway = new ApiClient({ baseUrl: '', token: () => tokenStore.get(), onUnauthorized: () => onUnauthorized() });
const call = <T>(method: string, route: string, body?: unknown): Promise<T> => gateway.call<T>(method, route, body);

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
  /** The stack's default model and the models it can run (a local server's own models too). */
  models: () => call<ModelsReply>('GET', '/api/models'),
  /** The transcript as the gateway renders it. */
  transcript: (id: string, format: 'markdown' | 'org') => gateway.text(`${sid(id)}/transcript?format=${format}`),
};
