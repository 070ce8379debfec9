import type { z } from 'zod';
import type { revertReplySchema, RevertRequest } from '../../contracts/checkpoints';
import type {
  compactedSchema,
  forkPointsSchema,
  messagesPageSchema,
  modelChangedSchema,
  pendingApprovalsSchema,
  promptAcceptedReplySchema,
  sessionListSchema,
  listedSessionSchema,
  sessionStatsSchema,
  sessionViewSchema,
  thinkingChangedSchema,
} from '../../contracts/http-replies';
import { builtinModelCatalog } from '../../contracts/model-catalog';
import { splitModelId } from '../../contracts/models';
import type { GatewayAddress } from './gateway-address';

export type SessionView = z.infer<typeof sessionViewSchema>;
/** A session in a list: also `unknown` when the gateway could not learn its state. */
export type ListedSession = z.infer<typeof listedSessionSchema>;
export type SessionStats = z.infer<typeof sessionStatsSchema>;
export type PromptAccepted = z.infer<typeof promptAcceptedReplySchema>;
export type PendingApproval = z.infer<typeof pendingApprovalsSchema>['approvals'][number];
export type MessagesPage = z.infer<typeof messagesPageSchema>;
export type StoredMessageItem = MessagesPage['messages'][number];
export type RevertReply = z.infer<typeof revertReplySchema>;

/** An answer of the gateway that is not a success: its HTTP status and the error body's code. */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The error body's `details` (e.g. a revert conflict's `paths`). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The gateway could not be reached at all (refused, reset, timed out). */
export class GatewayUnreachable extends Error {
  override readonly name = 'GatewayUnreachable';
}

const REQUEST_TIMEOUT_MS = 30_000;

/** A bare model name the built-in catalog knows (`claude-sonnet-4-6`), with its provider. */
function catalogModel(name: string): { provider: string; model: string } | undefined {
  const entry = builtinModelCatalog.models.find((m) => m.id === name);
  return entry ? { provider: entry.provider, model: entry.id } : undefined;
}

/**
 * The REST half of the HTTP protocol (docs/http.md) as `strand chat` uses it: one method per route,
 * replies typed by the contracts' reply schemas. The event stream is event-stream.ts.
 */
export class GatewayClient {
  constructor(readonly address: GatewayAddress) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.address.token ? { Authorization: `Bearer ${this.address.token}` } : {}), ...extra };
  }

  async call<T>(method: string, route: string, body?: unknown, timeoutMs = REQUEST_TIMEOUT_MS): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.address.url}${route}`, {
        method,
        headers: this.headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      throw new GatewayUnreachable(`the gateway at ${this.address.url} did not answer (${cause ?? (err as Error).message}); is the stack running? (npm start)`);
    }
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { error: { code: 'INVALID_REPLY', message: text.slice(0, 200) } };
    }
    if (!res.ok) {
      const error = (parsed as { error?: { code?: string; message?: string; details?: Record<string, unknown> } }).error;
      throw new GatewayError(res.status, error?.code ?? `HTTP_${res.status}`, error?.message ?? `${method} ${route} answered ${res.status}`, error?.details);
    }
    return parsed as T;
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
    return this.call('POST', `${this.sid(id)}/interrupt`, {}, 60_000);
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
  setModel(id: string, model?: string): Promise<z.infer<typeof modelChangedSchema>> {
    if (!model) return this.call('POST', `${this.sid(id)}/model`, { cycle: true });
    const parts = splitModelId(model) ?? catalogModel(model);
    if (!parts) throw new GatewayError(400, 'UNKNOWN_MODEL', `name the model as <provider>/<model> ("${model}" is in no catalog)`);
    return this.call('POST', `${this.sid(id)}/model`, { provider: parts.provider, model_id: parts.model });
  }
  /** Without a level the session's thinking level cycles. */
  setThinking(id: string, level?: string): Promise<z.infer<typeof thinkingChangedSchema>> {
    return this.call('POST', `${this.sid(id)}/thinking`, level ? { level } : { cycle: true });
  }
  compact(id: string, instructions?: string): Promise<z.infer<typeof compactedSchema>> {
    return this.call('POST', `${this.sid(id)}/compact`, instructions ? { instructions } : {}, 300_000);
  }
  forkPoints(id: string): Promise<z.infer<typeof forkPointsSchema>['messages']> {
    return this.call<z.infer<typeof forkPointsSchema>>('GET', `${this.sid(id)}/fork-points`).then((r) => r.messages);
  }
  /** `POST …/revert` (docs/undo.md): files back to before a turn (and the conversation with them), or the last revert redone. */
  revert(id: string, request: RevertRequest): Promise<RevertReply> {
    return this.call('POST', `${this.sid(id)}/revert`, request, 120_000);
  }
  fork(id: string, entryId: string): Promise<{ session_id: string }> {
    return this.call('POST', `${this.sid(id)}/fork`, { entry_id: entryId });
  }
  /** The transcript as the gateway renders it (`markdown`, `org` or `json`). */
  async transcript(id: string, format: 'markdown' | 'org' | 'json'): Promise<string> {
    const res = await fetch(`${this.address.url}${this.sid(id)}/transcript?format=${format}`, { headers: this.headers(), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    const text = await res.text();
    if (!res.ok) throw new GatewayError(res.status, `HTTP_${res.status}`, text.slice(0, 300));
    return text;
  }
  /** `GET /v1/status`: which providers can run (for the model picker). */
  status(): Promise<{ provider_auth?: string[]; model?: string }> {
    return this.call('GET', '/v1/status');
  }
}
