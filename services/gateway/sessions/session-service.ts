import { basename } from 'node:path';
import { MCP_SERVERS_METADATA_KEY, type McpServers } from '../../../contracts/mcp';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import { RUNTIME_KEYS, SESSION_METADATA_KEYS as KEYS } from '../../../contracts/session-settings';
import { newSessionMetadata } from '../../../contracts/session-record';
import { builtinModelCatalog, type ModelCatalog } from '../../../contracts/model-catalog';
import type { Budget, SessionSettings } from '../../../contracts/session-settings';
import type { PromptImageStore } from '../../../contracts/prompt-image-store';
import type { AgentEventReader } from '../events/agent-event-reader';
import type { SessionCommands } from '../temporal/session-commands';
import type { PromptAccepted, PromptCommand } from '../../../contracts/session-workflow';
import { scopedSessionId } from './client-session-ids';
import { HistorySeeding } from './history-seeding';
import { ModelChoice } from './model-choice';
import { PLACEHOLDER_TITLE_KEY, titleAfterFirstPrompt } from './session-title';
import type { RawPromptImage } from './prompt-images';
import { StackModels, type ModelServer, type RunnableModels } from './stack-models';
import { checkProjectAccess } from './project-access';
import { PromptImageIntake } from './prompt-image-intake';
import { SessionRef, type SessionRefDeps } from './session-ref';
import { listSessions } from './session-list';
import type { SessionView } from './session-view';
import { ownerOf, startInfo } from './start-info';

export type { SessionView } from './session-view';
export type { SessionRef } from './session-ref';

export interface CreateSessionInput {
  project_path: string;
  model?: string;
  title?: string;
  config?: Record<string, unknown>;
  owner?: string;
  /** The session's own MCP servers, kept in its metadata for the worker (never returned: docs/mcp.md). */
  mcp_servers?: McpServers;
}

export interface SessionServiceDeps {
  store: StoreClient;
  commands: SessionCommands;
  reader: AgentEventReader;
  defaultModel: string;
  catalog?: ModelCatalog;
  /** Providers with credentials (`scripted` is always available). */
  configuredProviders?: string[];
  /** Providers with a model server of the user's own (a base-URL override), asked which models they serve. */
  modelServers?: ModelServer[];
  /** Throws PERMISSION_DENIED when the gateway's user may not use a new session's project directory (default: project-access.ts). */
  checkProject?: (projectPath: string) => Promise<void>;
  /** Where prompt images are stored before the prompt (with their references) goes to the workflow; without it images are refused. */
  images?: PromptImageStore;
  /** The spending caps new sessions start with (STRAND_BUDGET_USD / STRAND_BUDGET_TOKENS); none when absent. */
  defaultBudget?: Budget;
  /**
   * Asked before each next event a session read hands out (a connection's outbox: `paced`). Without
   * it events are read as fast as their reader takes them.
   */
  pace?: () => Promise<boolean>;
  /** Which models can run, when not this process's own StackModels: paced copies share their parent's, `strand acp` asks the gateway. */
  runnable?: RunnableModels;
}

/**
 * The protocol-neutral face of sessions: finding and creating them, and `open`, which reads a session
 * and checks its owner once and hands back a SessionRef for the commands and reads of one client
 * action. HTTP, WebSocket, EDN and ACP adapters call this and only translate; none of them builds
 * workflow inputs or reads Temporal itself. Turns across sessions are RunningTurns' business.
 */
export class SessionService {
  readonly models: ModelChoice;
  /** The models this stack can run, and the default (GET /api/models and every picker). */
  readonly runnable: RunnableModels;
  /** Earlier conversation a chat brings along, written into the session it creates. */
  readonly history: HistorySeeding;
  private readonly catalog: ModelCatalog;
  private readonly refDeps: SessionRefDeps;

  constructor(private readonly deps: SessionServiceDeps) {
    this.catalog = deps.catalog ?? builtinModelCatalog;
    this.models = new ModelChoice(this.catalog, deps.configuredProviders ?? []);
    this.runnable = deps.runnable ?? new StackModels(this.models, deps.defaultModel, deps.modelServers ?? []);
    this.history = new HistorySeeding({ store: deps.store });
    const images = new PromptImageIntake({ commands: deps.commands, catalog: this.catalog, ...(deps.images ? { images: deps.images } : {}) });
    this.refDeps = { store: deps.store, commands: deps.commands, reader: deps.reader, catalog: this.catalog, models: this.models, images, ...(deps.pace ? { pace: deps.pace } : {}) };
  }

  /**
   * The same service for one connection whose events are paced by `pace` (its outbox's readiness):
   * every event read opened through it asks `pace` before each next event, so code that reads
   * events (a WebSocket's chats) is paced by its socket without knowing about it.
   */
  paced(pace: () => Promise<boolean>): SessionService {
    // The same StackModels, so that its cache of what model servers answered is shared.
    return new SessionService({ ...this.deps, pace, runnable: this.runnable });
  }

  /**
   * The session with id `sessionId` for one client action: its store record read, and its owner
   * checked, once. A session owned by another principal answers exactly as an unknown one: same
   * code (SESSION_NOT_FOUND), same message.
   */
  async open(sessionId: string, principal?: string): Promise<SessionRef> {
    const got = await this.deps.store.get({ session_id: sessionId });
    return this.ref(this.owned(got?.meta, sessionId, principal));
  }

  /**
   * A prompt into session `sessionId` for `principal` (docs/architecture.md, "A prompt without a store
   * read"): sent to the session's running workflow first, which checks the caller against the owner
   * and job it was started with, so the common case reads no store before the turn starts. The store
   * is read (and the prompt sent with update-with-start, as `open(...).prompt` does) when no run can
   * answer: a dormant, deleted or unknown session, a run or worker that predates the check, a job's
   * session, and a prompt with images (they are stored against the record first). Every refusal is the
   * store read's: SESSION_NOT_FOUND `no session <id>` for another principal's session, JOB_SESSION.
   */
  async prompt(sessionId: string, principal: string | undefined, prompt: PromptCommand, images: readonly RawPromptImage[] = []): Promise<PromptAccepted> {
    if (images.length === 0) {
      const accepted = await this.deps.commands.promptRunning(sessionId, principal, prompt);
      if (accepted) {
        // The first turn names a session the gateway titled after its folder (session-title.ts): only then is the record read.
        if (accepted.turn_number === 1 && !accepted.duplicate && !accepted.steered) await titleAfterFirstPrompt(this.deps.store, sessionId, prompt.text);
        return accepted;
      }
    }
    return (await this.open(sessionId, principal)).prompt(prompt, images);
  }

  /** `meta` when `principal` may use it; SESSION_NOT_FOUND (as for an unknown id) when it is missing or another's. */
  private owned(meta: SessionMeta | undefined, sessionId: string, principal: string | undefined): SessionMeta {
    const owner = ownerOf(meta);
    if (!meta || (principal !== undefined && owner !== undefined && owner !== principal)) {
      throw new StrandError(ErrorCode.SESSION_NOT_FOUND, `no session ${sessionId}`);
    }
    return meta;
  }

  private ref(meta: SessionMeta): SessionRef {
    return new SessionRef(this.refDeps, meta);
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
      await this.deps.commands.ensureRunning(startInfo(meta));
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
    // Without a title of the client's, the folder's name stands in until the first prompt (session-title.ts).
    if (input.title === undefined) metadata[PLACEHOLDER_TITLE_KEY] = true;
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
    return got && ownerOf(got.meta) === principal ? name : scopedSessionId(principal, name);
  }

  /**
   * The session with id `sessionId` (a stored id: a client's own name goes through `clientSessionId`
   * first), created from `input` when it does not exist yet (PERMISSION_DENIED, and nothing created,
   * when the gateway's user may not use its project directory), opened for the caller's action. An
   * existing session keeps its project. Another principal's session answers exactly as `open` does
   * for it (SESSION_NOT_FOUND).
   */
  async ensure(sessionId: string, input: CreateSessionInput): Promise<{ session: SessionRef; created: boolean }> {
    const existing = await this.deps.store.get({ session_id: sessionId });
    if (existing) return { session: this.ref(this.owned(existing.meta, sessionId, input.owner)), created: false };
    await this.checkProject(input.project_path);
    const got = await this.deps.store.ensure({ session_id: sessionId, ...this.newSessionFields(input) });
    // Created meanwhile by another request: as if it had been there.
    if (!got.created) return { session: this.ref(this.owned(got.meta, sessionId, input.owner)), created: false };
    return { session: this.ref(got.meta), created: true };
  }

  /** A page of sessions with their live state (session-list.ts); the principal's only, when there is one. */
  list(query: { limit?: number; cursor?: string; status?: SessionMeta['status']; project?: string }, principal?: string) {
    const { project, ...rest } = query;
    const metadata = { ...(principal !== undefined ? { [KEYS.owner]: principal } : {}), ...(project !== undefined ? { [KEYS.projectPath]: project } : {}) };
    return listSessions({ store: this.deps.store, commands: this.deps.commands, catalog: this.catalog, defaultModel: this.deps.defaultModel }, { ...rest, ...(Object.keys(metadata).length ? { metadata } : {}) });
  }
}
