import { basename } from 'node:path';
import { ZodError } from 'zod';
import { applySettingsChange } from '../../../contracts/settings-change';
import { MCP_SERVERS_METADATA_KEY, type McpServers } from '../../../contracts/mcp';
import type { CheckpointCommand, CheckpointCommandResult } from '../../../contracts/checkpoints';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import { RUNTIME_KEYS, SESSION_METADATA_KEYS as KEYS } from '../../../contracts/session-settings';
import { newSessionMetadata, readSessionRecord } from '../../../contracts/session-record';
import type { AbortResult, ApprovalCommand, PromptAccepted, PromptCommand, SettingsChange, UserCommand, UserCommandResult } from '../../../contracts/session-workflow';
import { builtinModelCatalog, type ModelCatalog } from '../../../contracts/model-catalog';
import type { Budget, SessionSettings } from '../../../contracts/session-settings';
import { ModelChoice } from './model-choice';
import { readForkPoints, readLastAssistantText } from './session-reads';
import { sessionStats, type SessionStats } from './session-stats';
import { entryIds, turnId, turnWorkflowId } from '../../../contracts/workflow-ids';
import { parseModelId } from '../../../contracts/models';
import type { AgentEventReader, EventSubscription } from '../events/agent-event-reader';
import type { TurnJob } from '../temporal/jobs';
import type { SessionCommands } from '../temporal/session-commands';
import { scopedSessionId } from './client-session-ids';
import { checkProjectAccess } from './project-access';
import { listedSessionView, sessionView, type SessionView } from './session-view';
import type { PromptImageStore } from '../../../contracts/prompt-image-store';
import { lookupModel } from '../../../contracts/model-catalog';
import { decodePromptImages, type RawPromptImage } from './prompt-images';

export type { SessionView } from './session-view';

/** A running (or finished) turn as `/api/jobs` shows it. */
export interface JobView extends TurnJob {
  steps: number;
  cost_usd: number;
  model: string;
  tokens: { input: number; output: number };
  retry_attempt: number;
  workflow_url: string | null;
}

export interface CreateSessionInput {
  project_path: string;
  model?: string;
  title?: string;
  config?: Record<string, unknown>;
  owner?: string;
  /** The session's own MCP servers, kept in its metadata for the worker (never returned: docs/mcp.md). */
  mcp_servers?: McpServers;
}

/** The turn a prompt's request id started, and whether it waits, runs or has ended. */
export interface RequestTurn {
  turn_id: string;
  status: 'queued' | 'running' | 'finished';
  /** When the turn's workflow started (ms), once it has. */
  started_at?: number;
}

export interface SessionServiceDeps {
  store: StoreClient;
  commands: SessionCommands;
  reader: AgentEventReader;
  defaultModel: string;
  catalog?: ModelCatalog;
  /** Providers with credentials (`scripted` is always available). */
  configuredProviders?: string[];
  /** Throws PERMISSION_DENIED when the gateway's user may not use a new session's project directory (default: project-access.ts). */
  checkProject?: (projectPath: string) => Promise<void>;
  /** A turn's workflow in the Temporal Web UI, or null when none is configured (temporal/jobs.ts workflowUrl). */
  workflowUrl?: (jobId: string) => string | null;
  /** Where prompt images are stored before the prompt (with their references) goes to the workflow; without it images are refused. */
  images?: PromptImageStore;
  /** The spending caps new sessions start with (STRAND_BUDGET_USD / STRAND_BUDGET_TOKENS); none when absent. */
  defaultBudget?: Budget;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * The protocol-neutral face of sessions: lookup (with the owner check every transport needs),
 * commands, state and the event subscription with a cursor. HTTP, WebSocket and EDN adapters call
 * this and only translate; none of them builds workflow inputs or reads Temporal itself.
 */
export class SessionService {
  readonly models: ModelChoice;
  private readonly catalog: ModelCatalog;

  constructor(private readonly deps: SessionServiceDeps) {
    this.catalog = deps.catalog ?? builtinModelCatalog;
    this.models = new ModelChoice(this.catalog, deps.configuredProviders ?? []);
  }

  /**
   * Changes settings; the model is checked against the catalog and configured providers, the thinking
   * level clamped to the model. A running session's workflow applies them; a dormant one's are
   * written to the store (changeStoredSettings).
   */
  async updateSettings(sessionId: string, change: SettingsChange & { cycle_model?: boolean; cycle_thinking?: boolean }, principal?: string): Promise<SessionSettings & { notice?: string }> {
    const meta = await this.require(sessionId, principal);
    const { cycle_model, cycle_thinking, ...rest } = change;
    const live = await this.deps.commands.live(sessionId);
    const current = live?.settings ?? this.storedSettings(meta);
    let notice: string | undefined;
    const next: SettingsChange = { ...rest };
    if (cycle_model) next.model = this.models.next(current.model);
    if (next.model) {
      const chosen = this.models.resolve(next.model);
      next.model = chosen.ref;
      if (!chosen.entry.known) notice = `${chosen.ref} is not in the model catalog: default limits (${chosen.entry.context_window} tokens) and no price`;
    }
    const model = next.model ?? current.model;
    const level = cycle_thinking ? this.models.nextLevel(model, current.thinking_level) : (next.thinking_level ?? current.thinking_level);
    next.thinking_level = this.models.clamp(model, level);
    const settings = live ? await this.deps.commands.setSettings(this.startInfo(meta), next) : await this.changeStoredSettings(meta, current, next);
    return { ...settings, ...(notice ? { notice } : {}) };
  }

  /**
   * A dormant session's settings change in the store, where its workflow loads them when it comes
   * back: no worker is needed, and the session stays dormant. Had the workflow come back meanwhile
   * (a prompt from elsewhere) with the settings from before the write, the change goes to it as well:
   * sent twice, it is the same change.
   */
  private async changeStoredSettings(meta: SessionMeta, current: SessionSettings, change: SettingsChange): Promise<SessionSettings> {
    let settings: SessionSettings;
    try {
      settings = applySettingsChange(current, change);
    } catch (err) {
      if (err instanceof ZodError) throw new StrandError(ErrorCode.INVALID_REQUEST, err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      throw err;
    }
    await this.deps.store.setMeta({ session_id: meta.session_id, metadata_patch: { [RUNTIME_KEYS.settings]: settings } });
    if (await this.deps.commands.live(meta.session_id)) return this.deps.commands.setSettings(this.startInfo(meta), change);
    return settings;
  }

  /** Every setting of a session: its running workflow's, else the stored ones it loads when it comes back. */
  async settings(sessionId: string, principal?: string): Promise<SessionSettings> {
    const meta = await this.require(sessionId, principal);
    return (await this.deps.commands.live(sessionId))?.settings ?? this.storedSettings(meta);
  }

  /** The settings a session's workflow has, or loads when it comes back (the one decoder of stored metadata). */
  private storedSettings(meta: SessionMeta): SessionSettings {
    return readSessionRecord(meta.metadata).settings;
  }

  /**
   * A new session, its workflow started, so it is `active` when the caller is told so (`dormant`
   * when Temporal cannot be reached: the store has it and its next command starts the workflow).
   * A model is checked as the model command checks it (UNKNOWN_MODEL, and nothing created);
   * PERMISSION_DENIED when the gateway's user may not read or enter its project directory.
   */
  async create(input: CreateSessionInput): Promise<{ session_id: string; meta: SessionMeta; status: SessionView['status'] }> {
    const fields = this.newSessionFields(input);
    if (input.mcp_servers && Object.keys(input.mcp_servers).length > 0) fields.metadata[MCP_SERVERS_METADATA_KEY] = input.mcp_servers;
    await this.checkProject(input.project_path);
    const created = await this.deps.store.create(fields);
    return { ...created, status: await this.start(created.meta) };
  }

  /** Starts the session's workflow; `dormant` instead of failing when Temporal is unavailable. */
  private async start(meta: SessionMeta): Promise<SessionView['status']> {
    try {
      await this.deps.commands.ensureRunning(this.startInfo(meta));
      return 'active';
    } catch (err) {
      if (err instanceof StrandError && err.code === ErrorCode.UNAVAILABLE) return 'dormant';
      throw err;
    }
  }

  private checkProject(projectPath: string): Promise<void> {
    return (this.deps.checkProject ?? checkProjectAccess)(projectPath);
  }

  /** The store fields of a new session; a model the client chose is checked first (UNKNOWN_MODEL). */
  private newSessionFields(input: CreateSessionInput) {
    const model = input.model !== undefined ? this.models.resolve(input.model).ref : this.deps.defaultModel;
    const metadata = newSessionMetadata({ project_path: input.project_path, model, ...(input.config ? { config: input.config } : {}), ...(input.owner ? { owner: input.owner } : {}) });
    // The gateway's default caps are part of the first settings, so the session keeps them as its own.
    const budget = this.deps.defaultBudget;
    if (budget) metadata[RUNTIME_KEYS.settings] = { ...(metadata[RUNTIME_KEYS.settings] as SessionSettings), budget };
    return { title: input.title ?? basename(input.project_path), metadata };
  }

  /** The model new sessions get, and the providers a session may use (`scripted` is always there). */
  get defaultModel(): string {
    return this.deps.defaultModel;
  }

  providers(): string[] {
    return ['scripted', ...(this.deps.configuredProviders ?? []).filter((p) => p !== 'scripted')];
  }

  /**
   * The stored id of the session a client names `name` itself (WebSocket `chat.start {sessionId}`,
   * `POST /v1/chat/stream`, `strand rpc-edn --session-id`); every transport resolves such a name here
   * before `ensure`. With auth off (no principal) the name is the id, as it always was. With a
   * principal, client-chosen ids are scoped per principal (client-session-ids.ts): a name that is
   * already the id of a session the principal owns (one created over HTTP, an id the REST API
   * showed) names that session; any other name — unknown, or another principal's — becomes
   * `scopedSessionId(principal, name)`. So another principal's id answers exactly like an unknown
   * one: both give the caller a session of its own, after the same store read.
   */
  async clientSessionId(name: string, principal?: string): Promise<string> {
    if (principal === undefined) return name;
    const got = await this.deps.store.get({ session_id: name });
    return got && str(got.meta.metadata?.[KEYS.owner]) === principal ? name : scopedSessionId(principal, name);
  }

  /**
   * The session with id `sessionId` (a stored id: a client's own name goes through `clientSessionId`
   * first), created from `input` when it does not exist yet (PERMISSION_DENIED, and nothing created,
   * when the gateway's user may not use its project directory). An existing session keeps its
   * project. Another principal's session answers exactly as `require` does for it (SESSION_NOT_FOUND).
   */
  async ensure(sessionId: string, input: CreateSessionInput): Promise<{ meta: SessionMeta; created: boolean }> {
    const existing = await this.deps.store.get({ session_id: sessionId });
    if (existing) return { meta: this.owned(existing.meta, sessionId, input.owner), created: false };
    await this.checkProject(input.project_path);
    const got = await this.deps.store.ensure({ session_id: sessionId, ...this.newSessionFields(input) });
    // Created meanwhile by another request: as if it had been there.
    if (!got.created) return { meta: this.owned(got.meta, sessionId, input.owner), created: false };
    return { meta: got.meta, created: true };
  }

  /**
   * Earlier conversation a client brings along, written as plain user/assistant text messages before
   * the session's first turn; a session that already has messages is left alone (returns 0).
   */
  async seedHistory(sessionId: string, items: Array<{ role: 'user' | 'assistant'; text: string; timestamp?: number }>, principal?: string): Promise<number> {
    const meta = await this.require(sessionId, principal);
    if (meta.message_count > 0 || items.length === 0) return 0;
    const { provider, model } = parseModelId(this.storedSettings(meta).model);
    const now = Date.now();
    const messages = items.map((m) => {
      const content = [{ type: 'text' as const, text: m.text }];
      const timestamp = m.timestamp ?? now;
      return m.role === 'user' ? { role: 'user' as const, content, timestamp } : { role: 'assistant' as const, content, model, provider, stop_reason: 'end' as const, timestamp };
    });
    await this.deps.store.appendMany({ session_id: sessionId, messages, origin: { seeded: true } });
    return messages.length;
  }

  /**
   * The turn a prompt with `requestId` started: from the session's durable record (written as the turn
   * begins) or its queue, and Temporal for whether it still runs. Null when the session never took
   * the request (or has not begun its turn yet and is not queueing it).
   */
  async requestTurn(sessionId: string, requestId: string, principal?: string): Promise<RequestTurn | null> {
    const meta = await this.require(sessionId, principal);
    const hit = readSessionRecord(meta.metadata).requests.find((r) => r.request_id === requestId);
    if (!hit) {
      const queued = (await this.deps.commands.live(sessionId))?.queue.find((q) => q.request_id === requestId);
      return queued ? { turn_id: turnId(queued.turn_number), status: 'queued' } : null;
    }
    const job = await this.deps.commands.job(turnWorkflowId(sessionId, hit.turn_number));
    return { turn_id: hit.turn_id, status: job?.status === 'running' ? 'running' : 'finished', ...(job ? { started_at: job.started_at } : {}) };
  }

  /**
   * The session's store record. A session owned by another principal answers exactly as an unknown
   * one: same code, same message.
   */
  async require(sessionId: string, principal?: string): Promise<SessionMeta> {
    const got = await this.deps.store.get({ session_id: sessionId });
    return this.owned(got?.meta, sessionId, principal);
  }

  /** `meta` when `principal` may use it; SESSION_NOT_FOUND (as for an unknown id) when it is missing or another's. */
  private owned(meta: SessionMeta | undefined, sessionId: string, principal: string | undefined): SessionMeta {
    const owner = str(meta?.metadata?.[KEYS.owner]);
    if (!meta || (principal !== undefined && owner !== undefined && owner !== principal)) {
      throw new StrandError(ErrorCode.SESSION_NOT_FOUND, `no session ${sessionId}`);
    }
    return meta;
  }

  async describe(sessionId: string, principal?: string): Promise<SessionView> {
    const meta = await this.require(sessionId, principal);
    return sessionView(meta, await this.deps.commands.live(meta.session_id));
  }

  /** A page of sessions with their live state; what Temporal could not say is `unknown` with the reason (the list never fails for it). */
  async list(query: { limit?: number; cursor?: string; status?: SessionMeta['status']; project?: string }, principal?: string) {
    const { project, ...rest } = query;
    const metadata = { ...(principal !== undefined ? { [KEYS.owner]: principal } : {}), ...(project !== undefined ? { [KEYS.projectPath]: project } : {}) };
    const page = await this.deps.store.list({ ...rest, ...(Object.keys(metadata).length ? { metadata } : {}) });
    // One visibility query for the page (never N queries); a session Temporal could not say is `unknown`.
    const reads = await this.deps.commands.liveMany(page.sessions.map((m) => m.session_id));
    const views = page.sessions.map((m) => listedSessionView(m, reads.get(m.session_id) ?? { status: 'unknown', reason: 'not read' }));
    // Spent is read from the session's whole transcript: only where there is a cap to show it against,
    // so listing many long sessions does not read every one of them (GET …/stats has it for any session).
    const spent = await Promise.all(views.map((v) => (hasCap(v.budget) ? this.spent(v.session_id) : undefined)));
    return { sessions: views.map((v, i) => ({ ...v, ...(spent[i] ? { spent: spent[i] } : {}) })), ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}) };
  }

  /**
   * What a session has spent, as its budget check counts it: the cost and all tokens of its recorded
   * steps. Left out (undefined) when its messages cannot be read: one session must not fail the list.
   */
  private async spent(sessionId: string): Promise<{ cost_usd: number; tokens: number } | undefined> {
    try {
      const { usage } = await sessionStats(this.deps.store, sessionId, { model: this.deps.defaultModel, catalog: this.catalog });
      return { cost_usd: usage.cost_usd, tokens: usage.input + usage.output + usage.cache_read + usage.cache_write };
    } catch {
      return undefined;
    }
  }

  /**
   * Starts (or queues) a turn. `images` (HTTP `images[]`, ACP image blocks) are checked, refused
   * when the session's model takes none, and stored first: the workflow gets their references only.
   */
  async prompt(sessionId: string, prompt: PromptCommand, principal?: string, images: readonly RawPromptImage[] = []): Promise<PromptAccepted> {
    const meta = await this.require(sessionId, principal);
    if (images.length === 0) return this.deps.commands.prompt(this.startInfo(meta), prompt);
    return this.deps.commands.prompt(this.startInfo(meta), { ...prompt, images: await this.storeImages(meta, prompt, images) });
  }

  /** Checks and stores a prompt's images (docs/images.md); nothing is stored when any check fails. */
  private async storeImages(meta: SessionMeta, prompt: PromptCommand, images: readonly RawPromptImage[]) {
    if (prompt.behavior === 'steer') throw new StrandError(ErrorCode.INVALID_REQUEST, 'images cannot be sent as steering: send them with a prompt');
    const decoded = decodePromptImages(images);
    // The model the next turn runs with: the running workflow's settings (a model just switched), else the stored ones.
    const model = ((await this.deps.commands.live(meta.session_id))?.settings ?? this.storedSettings(meta)).model;
    const entry = lookupModel(this.catalog, model);
    // Ids outside the catalog get the images: the provider itself says whether the model takes them.
    if (entry.known && !entry.supports.images) {
      throw new StrandError(ErrorCode.IMAGES_NOT_SUPPORTED, `${model} does not take images (its catalog entry says supports.images: false): switch to a model that does, or send text only`, { model });
    }
    const store = this.deps.images;
    if (!store) throw new StrandError(ErrorCode.UNAVAILABLE, 'this gateway has no image store: prompts with images are not taken');
    try {
      return await Promise.all(decoded.map((d) => store.put(d.bytes, d.mime)));
    } catch (err) {
      throw new StrandError(ErrorCode.UNAVAILABLE, `the prompt's images could not be stored: ${err instanceof Error ? err.message : String(err)}`, undefined, { cause: err });
    }
  }

  private startInfo(meta: SessionMeta) {
    const record = readSessionRecord(meta.metadata);
    const owner = str(meta.metadata?.[KEYS.owner]);
    return { session_id: meta.session_id, project_path: record.project_path, model: record.settings.model, ...(owner ? { owner } : {}) };
  }

  /** A user's own shell command in the session's workspace (only while idle), recorded in the conversation. */
  async runCommand(sessionId: string, cmd: UserCommand, principal?: string): Promise<UserCommandResult> {
    const meta = await this.require(sessionId, principal);
    return this.deps.commands.userCommand(this.startInfo(meta), cmd);
  }

  /**
   * File checkpoints (docs/undo.md): reverted or redone by the session's workflow on the worker; listed
   * apart from it (a read wakes no dormant session).
   */
  async checkpointCommand(sessionId: string, cmd: CheckpointCommand, principal?: string, requestId?: string): Promise<CheckpointCommandResult> {
    const meta = await this.require(sessionId, principal);
    if (cmd.op === 'list') return this.deps.commands.listCheckpoints(meta.session_id);
    return this.deps.commands.checkpoints(this.startInfo(meta), cmd, requestId);
  }

  async abortCommand(sessionId: string, principal?: string): Promise<{ stopped: boolean }> {
    await this.require(sessionId, principal);
    return this.deps.commands.abortUserCommand(sessionId);
  }

  /** Stops turn `turnId` (or the running, else the next queued one), even before its workflow has started. */
  async abort(sessionId: string, principal?: string, requestId?: string, turnId?: string): Promise<AbortResult> {
    await this.require(sessionId, principal);
    return this.deps.commands.abort(sessionId, requestId, turnId);
  }

  async abortRetry(sessionId: string, principal?: string, requestId?: string) {
    await this.require(sessionId, principal);
    return this.deps.commands.abortRetry(sessionId, requestId);
  }

  /** Asks the running turn to stop at its next step boundary (psi's `interrupt`); a no-op when idle. */
  async interrupt(sessionId: string, principal?: string, requestId?: string) {
    await this.require(sessionId, principal);
    return this.deps.commands.interrupt(sessionId, requestId);
  }

  async steer(sessionId: string, text: string, principal?: string, requestId?: string) {
    await this.require(sessionId, principal);
    return this.deps.commands.steer(sessionId, { text }, requestId);
  }

  async compact(sessionId: string, instructions?: string, principal?: string) {
    const meta = await this.require(sessionId, principal);
    return this.deps.commands.compact(this.startInfo(meta), instructions);
  }

  async answerApproval(sessionId: string, cmd: ApprovalCommand, principal?: string, requestId?: string) {
    await this.require(sessionId, principal);
    return this.deps.commands.approval(sessionId, cmd, requestId);
  }

  /**
   * Whether tool call `toolCallId` waits for an answer: the view, else (it may trail a state the session
   * has just published: SessionCommands.queried) the workflow itself. Approvals only wait while a turn
   * runs, so a worker is there to answer.
   */
  async stillPending(sessionId: string, toolCallId: string, principal?: string): Promise<boolean> {
    await this.require(sessionId, principal);
    if ((await this.deps.commands.live(sessionId))?.pending_approvals.some((p) => p.tool_call_id === toolCallId)) return true;
    return !!(await this.deps.commands.queried(sessionId))?.pending_approvals.some((p) => p.tool_call_id === toolCallId);
  }

  /** Tool calls waiting for an answer, with their arguments (read from the stored assistant message). */
  async pendingApprovals(sessionId: string, principal?: string): Promise<Array<{ tool_call_id: string; tool: string; params: unknown; turn_id: string | null }>> {
    await this.require(sessionId, principal);
    let state = await this.deps.commands.live(sessionId);
    // The session publishes the state announcing approvals as its workflow task runs, and the view is
    // written when that task completes: while a turn runs, a view that lists none asks the workflow.
    if (state?.active_turn && state.pending_approvals.length === 0) state = (await this.deps.commands.queried(sessionId)) ?? state;
    if (!state || state.pending_approvals.length === 0 || !state.active_turn || state.step === null) return [];
    const got = await this.deps.store.getMessage({ session_id: sessionId, entry_id: entryIds.assistant(state.active_turn, state.step) });
    const message = got?.entry.kind === 'message' ? got.entry.message : undefined;
    const content = message?.role === 'assistant' ? message.content : [];
    return state.pending_approvals.map((p) => {
      const call = content.find((b) => b.type === 'function_call' && b.id === p.tool_call_id);
      return { ...p, params: call && call.type === 'function_call' ? (call.arguments ?? {}) : {}, turn_id: state.active_turn };
    });
  }

  async clearQueue(sessionId: string, principal?: string, requestId?: string) {
    await this.require(sessionId, principal);
    return this.deps.commands.clearQueue(sessionId, requestId);
  }

  /** Wakes a dormant session (its workflow comes back with its settings); a running one is left alone. */
  async resume(sessionId: string, principal?: string): Promise<{ session_id: string; message_count: number }> {
    const meta = await this.require(sessionId, principal);
    await this.deps.commands.ensureRunning(this.startInfo(meta));
    return { session_id: meta.session_id, message_count: meta.message_count };
  }

  /**
   * A new session holding the conversation up to `entry_id` (the store's fork), with the same project
   * and settings; request ids answered in the source are not carried over (they name its turns).
   */
  async fork(sessionId: string, entryId: string, principal?: string): Promise<{ session_id: string }> {
    await this.require(sessionId, principal);
    const forked = await this.deps.store.fork({ session_id: sessionId, entry_id: entryId });
    await this.deps.store.setMeta({ session_id: forked.session_id, metadata_patch: { [RUNTIME_KEYS.requests]: null } });
    return { session_id: forked.session_id };
  }

  /** Deletes a session: its running turn is aborted first, its workflow ended, then the store forgets it. */
  async delete(sessionId: string, principal?: string): Promise<{ aborted_turn: string | null }> {
    await this.require(sessionId, principal);
    const aborted = await this.deps.commands.abort(sessionId);
    await this.deps.commands.close(sessionId, 'session deleted');
    await this.deps.store.delete({ session_id: sessionId });
    return { aborted_turn: aborted.turn_id };
  }

  /** Running turns of every session (the principal's only), with progress and cost so far. */
  async jobs(principal?: string): Promise<JobView[]> {
    const jobs = await this.deps.commands.runningJobs(principal);
    return Promise.all(jobs.map((j) => this.jobView(j)));
  }

  async job(jobId: string, principal?: string): Promise<JobView> {
    const job = await this.deps.commands.job(jobId);
    const meta = job ? await this.deps.store.get({ session_id: job.session_id }) : null;
    const owner = str(meta?.meta.metadata?.[KEYS.owner]);
    if (!job || (principal !== undefined && owner !== undefined && owner !== principal)) throw new StrandError(ErrorCode.JOB_NOT_FOUND, `no job ${jobId}`);
    return this.jobView(job, meta);
  }

  /** Stops a running job as an interrupt does: the turn ends within a second, its partial answer kept. */
  async cancelJob(jobId: string, principal?: string): Promise<{ status: 'cancelled' | 'not_running' }> {
    const job = await this.job(jobId, principal);
    if (job.status !== 'running') return { status: 'not_running' };
    const state = await this.deps.commands.live(job.session_id);
    if (state?.active_turn !== job.turn_id) return { status: 'not_running' };
    const result = await this.deps.commands.abort(job.session_id);
    return { status: result.aborted ? 'cancelled' : 'not_running' };
  }

  private async jobView(job: TurnJob, known?: { meta: SessionMeta } | null): Promise<JobView> {
    const [state, cost] = await Promise.all([
      job.status === 'running' ? this.deps.commands.live(job.session_id) : Promise.resolve(undefined),
      // The model only sizes the context window, which a job does not show.
      sessionStats(this.deps.store, job.session_id, { model: this.deps.defaultModel, catalog: this.catalog, turn: job.turn_id }),
    ]);
    // The session's model: its workflow's settings while it runs, else what the store holds.
    const stored = state?.settings ? undefined : (known ?? (await this.deps.store.get({ session_id: job.session_id })));
    const model = state?.settings?.model ?? (stored ? this.storedSettings(stored.meta).model : this.deps.defaultModel);
    const current = state?.active_turn === job.turn_id;
    return {
      ...job,
      phase: current ? state.phase : job.phase,
      steps: cost.steps + (current && state.step !== null && state.streaming ? 1 : 0),
      cost_usd: cost.usage.cost_usd,
      model,
      tokens: { input: cost.usage.input, output: cost.usage.output },
      retry_attempt: current ? state.retry_attempt : 0,
      workflow_url: this.deps.workflowUrl?.(job.job_id) ?? null,
    };
  }

  /** Tokens, cost, message counts, steps, turns and context use of a session (get_session_stats). */
  async stats(sessionId: string, principal?: string): Promise<SessionStats & { model: string; budget?: Budget }> {
    const meta = await this.require(sessionId, principal);
    const { model, budget } = (await this.deps.commands.live(sessionId))?.settings ?? this.storedSettings(meta);
    return { model, ...(budget ? { budget } : {}), ...(await sessionStats(this.deps.store, sessionId, { model, catalog: this.catalog })) };
  }

  /** The user messages of the active branch, newest last: where a fork can start (get_fork_messages). */
  async forkPoints(sessionId: string, principal?: string) {
    await this.require(sessionId, principal);
    return readForkPoints(this.deps.store, sessionId);
  }

  /** The text of the newest assistant message on the active branch (get_last_assistant_text). */
  async lastAssistantText(sessionId: string, principal?: string) {
    await this.require(sessionId, principal);
    return readLastAssistantText(this.deps.store, sessionId);
  }

  async messages(sessionId: string, query: { limit?: number; cursor?: string; from_entry_id?: string }, principal?: string) {
    await this.require(sessionId, principal);
    const page = await this.deps.store.messages({ session_id: sessionId, ...query });
    if (!page) throw new StrandError(ErrorCode.SESSION_NOT_FOUND, `no session ${sessionId}`);
    return page;
  }

  /**
   * Events after `afterSeq`, then live ones. Without a cursor: the running turn's events so far (from
   * its first event), then live ones — a client that connects just after sending a prompt misses
   * nothing; with no turn running, live events only.
   */
  async events(sessionId: string, afterSeq: number | undefined, principal?: string): Promise<EventSubscription> {
    await this.require(sessionId, principal);
    if (afterSeq !== undefined) return this.deps.reader.open(sessionId, afterSeq);
    // Where the running turn starts is asked of the workflow: the view is written when the workflow
    // task that started the turn completes, after the turn's first events went out, so right after a
    // prompt it can still name the previous turn's start (and the stream would replay that turn). The
    // view serves when the workflow cannot answer in time (a busy or frozen worker).
    const state = await this.deps.commands.queried(sessionId, STREAM_START_QUERY_MS).catch(() => this.deps.commands.live(sessionId).catch(() => undefined));
    const start = state?.active_turn && state.turn_start_seq ? state.turn_start_seq - 1 : undefined;
    return this.deps.reader.open(sessionId, start);
  }
}

/** How long opening a stream without a cursor waits for the workflow to say where the running turn starts. */
const STREAM_START_QUERY_MS = 1_500;

/** A cap set (a null or absent field is none). */
function hasCap(budget: { max_cost_usd?: number | null; max_tokens?: number | null } | undefined): boolean {
  return typeof budget?.max_cost_usd === 'number' || typeof budget?.max_tokens === 'number';
}
