import type { z } from 'zod';
import type { revertReplySchema, RevertRequest } from '../../contracts/checkpoints';
import type {
  compactedSchema,
  forkPointsSchema,
  messagesPageSchema,
  modelChangedSchema,
  ModelsReply,
  pendingApprovalsSchema,
  promptAcceptedReplySchema,
  sessionListSchema,
  listedSessionSchema,
  sessionStatsSchema,
  sessionViewSchema,
  thinkingChangedSchema,
} from '../../contracts/http-replies';
import { splitModelId } from '../../contracts/models';
import { ApiClient, ApiError } from '../core/api-client';
import type { GatewayAddress } from './gateway-address';

export type SessionView = z.infer<typeof sessionViewSchema>;
/** A session in a list: also `unknown` when the gateway could not learn its state. */
export type ListedSession = z.infer<typeof listedSessionSchema>;
export type SessionStats = z.infer<typeof sessionStatsSchema>;
export type PromptAccepted = z.infer<typeof promptAcceptedReplySchema>;
export type PendingApproval = z.infer<typeof pendingApprovalsSchema>['approvals'][number];
type MessagesPage = z.infer<typeof messagesPageSchema>;
export type StoredMessageItem = MessagesPage['messages'][number];
export type RevertReply = z.infer<typeof revertReplySchema>;

/** The terminal's requests wait this long unless a route needs more (an interrupt, a compaction, a revert). */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The REST half of the HTTP protocol (docs/http.md) as `strand chat` uses it: one method per route,
 * replies typed by the contracts' reply schemas, over the clients' one API client
 * (clients/core/api-client.ts: token, JSON, ApiError). The event stream is event-stream.ts.
 */
export class GatewayClient extends ApiClient {
  constructor(readonly address: GatewayAddress) {
    super({ baseUrl: address.url, token: () => address.token, timeoutMs: REQUEST_TIMEOUT_MS, unreachableHint: 'is the stack running? (npm start)' });
  }

  private sid(id: string): string {
    return `/api/sessions/${encodeURIComponent(id)}`;
  }

  createSession(projectPath: string): Promise<{ session_id: string }> {
    return this.call('POST', '/api/sessions', { project_path: projectPath });
  }
  /** The caller's sessions of one project, most recently used first. */
  async projectSessions(projectPath: string): Promise<ListedSession[]> {
    const page = await this.call<z.infer<typeof sessionListSchema>>('GET', `/api/sessions?limit=200&project=${encodeURIComponent(projectPath)}`);
    return [...page.sessions].sort((a, b) => b.updated_at - a.updated_at);
  }
  session(id: string): Promise<SessionView> {
    return this.call('GET', this.sid(id));
  }
  stats(id: string): Promise<SessionStats> {
    return this.call('GET', `${this.sid(id)}/stats`);
  }
  /** Every stored message of the session's active branch, oldest first (all pages). */
  async messages(id: string): Promise<StoredMessageItem[]> {
    const all: StoredMessageItem[] = [];
    let cursor: string | undefined;
    do {
      const page: MessagesPage = await this.call('GET', `${this.sid(id)}/messages?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      all.push(...page.messages);
      cursor = page.next_cursor;
    } while (cursor);
    return all;
  }
  /** A prompt; `queue`: while a turn runs it waits as a follow-up instead of answering 409 SESSION_BUSY. */
  prompt(id: string, text: string, requestId: string, queue: boolean): Promise<PromptAccepted> {
    return this.call('POST', `${this.sid(id)}/prompt${queue ? '?queue=1' : ''}`, { text, request_id: requestId });
  }
  /** Text for the running turn's next model step (calls still waiting for approval are skipped). */
  steer(id: string, text: string): Promise<unknown> {
    return this.call('POST', `${this.sid(id)}/steer`, { text });
  }
  interrupt(id: string): Promise<{ status: string }> {
    return this.call('POST', `${this.sid(id)}/interrupt`, {}, { timeoutMs: 60_000 });
  }
  approvals(id: string): Promise<PendingApproval[]> {
    return this.call<z.infer<typeof pendingApprovalsSchema>>('GET', `${this.sid(id)}/approvals`).then((r) => r.approvals);
  }
  approve(id: string, toolCallId: string, always: boolean): Promise<unknown> {
    return this.call('POST', `${this.sid(id)}/approve`, { tool_call_id: toolCallId, ...(always ? { always: true } : {}) });
  }
  reject(id: string, toolCallId: string, reason?: string): Promise<unknown> {
    return this.call('POST', `${this.sid(id)}/reject`, { tool_call_id: toolCallId, ...(reason ? { reason } : {}) });
  }
  /** `model` as `provider/model-id`; without it the session's model cycles. */
  async setModel(id: string, model?: string): Promise<z.infer<typeof modelChangedSchema>> {
    if (!model) return this.call('POST', `${this.sid(id)}/model`, { cycle: true });
    const parts = splitModelId(model) ?? (await this.runnableModel(model));
    if (!parts) throw new ApiError(400, 'UNKNOWN_MODEL', `name the model as <provider>/<model> ("${model}" is not among the stack's models: /model lists them)`);
    return this.call('POST', `${this.sid(id)}/model`, { provider: parts.provider, model_id: parts.model });
  }
  /** Without a level the session's thinking level cycles. */
  setThinking(id: string, level?: string): Promise<z.infer<typeof thinkingChangedSchema>> {
    return this.call('POST', `${this.sid(id)}/thinking`, level ? { level } : { cycle: true });
  }
  compact(id: string, instructions?: string): Promise<z.infer<typeof compactedSchema>> {
    return this.call('POST', `${this.sid(id)}/compact`, instructions ? { instructions } : {}, { timeoutMs: 300_000 });
  }
  forkPoints(id: string): Promise<z.infer<typeof forkPointsSchema>['messages']> {
    return this.call<z.infer<typeof forkPointsSchema>>('GET', `${this.sid(id)}/fork-points`).then((r) => r.messages);
  }
  /** `POST …/revert` (docs/undo.md): files back to before a turn (and the conversation with them), or the last revert redone. */
  revert(id: string, request: RevertRequest): Promise<RevertReply> {
    return this.call('POST', `${this.sid(id)}/revert`, request, { timeoutMs: 120_000 });
  }
  fork(id: string, entryId: string): Promise<{ session_id: string }> {
    return this.call('POST', `${this.sid(id)}/fork`, { entry_id: entryId });
  }
  /** The transcript as the gateway renders it (`markdown`, `org` or `json`). */
  transcript(id: string, format: 'markdown' | 'org' | 'json'): Promise<string> {
    return this.text(`${this.sid(id)}/transcript?format=${format}`);
  }
  /** `GET /v1/status`: which providers can run (for the model picker). */
  /** The stack's default model and the models it can run (a local server's own ones included). */
  models(): Promise<ModelsReply> {
    return this.call('GET', '/api/models');
  }
  /** A bare model name (`claude-sonnet-4-6`, `llama3.2:3b`) among the stack's models, with its provider. */
  private async runnableModel(name: string): Promise<{ provider: string; model: string } | undefined> {
    const found = (await this.models()).models.find((m) => m.id === name);
    return found ? { provider: found.provider, model: found.id } : undefined;
  }
  status(): Promise<{ provider_auth?: string[]; model?: string }> {
    return this.call('GET', '/v1/status');
  }
}
