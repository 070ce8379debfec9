import type { CheckpointCommand, CheckpointCommandResult } from '../../../contracts/checkpoints';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { ModelCatalog } from '../../../contracts/model-catalog';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import { readSessionRecord } from '../../../contracts/session-record';
import { RUNTIME_KEYS, type Budget, type SessionSettings } from '../../../contracts/session-settings';
import type { AbortResult, ApprovalCommand, PromptAccepted, PromptCommand, UserCommand, UserCommandResult } from '../../../contracts/session-workflow';
import { turnId, turnNumberOf, turnWorkflowId } from '../../../contracts/workflow-ids';
import { JOB_SESSION_METADATA_KEY, jobSessionRefusal } from '../../../contracts/job-session';
import type { EventSubscription } from '../events/agent-event-reader';
import type { SessionCommands } from '../temporal/session-commands';
import type { ModelChoice } from './model-choice';
import type { PromptImageIntake } from './prompt-image-intake';
import type { RawPromptImage } from './prompt-images';
import { approvalStillPending, pendingApprovals, type PendingApproval } from './session-approvals';
import { openSessionEvents, type SessionEventsDeps } from './session-events';
import { readForkPoints, readLastAssistantText } from './session-reads';
import { changeSettings, storedSettings, type ClientSettingsChange } from './session-settings-change';
import { sessionStats, type SessionStats } from './session-stats';
import { sessionView, type SessionView } from './session-view';
import { jobOf, startInfo } from './start-info';
import { titleFromFirstPrompt } from './session-title';

/** What every session reference shares: the store, Temporal and the event reader, built once by SessionService. */
export interface SessionRefDeps extends SessionEventsDeps {
  store: StoreClient;
  commands: SessionCommands;
  catalog: ModelCatalog;
  models: ModelChoice;
  images: PromptImageIntake;
}

/** The turn a prompt's request id started, and whether it waits, runs or has ended. */
export interface RequestTurn {
  turn_id: string;
  status: 'queued' | 'running' | 'finished';
  /** When the turn's workflow started (ms), once it has. */
  started_at?: number;
}

/**
 * One session as one client action sees it: its store record read and its owner checked once
 * (SessionService.open), then any number of commands and reads on it. A reference lives as long as
 * the action that opened it (a request, a chat's start, an ACP `session/load`): what the store says
 * about the session may change behind it, so a new action opens a new one. Reads that must see the
 * newest record (requestTurn) read it again; the reference's own writes (settings of a dormant
 * session, seeded history) update the record it holds.
 */
export class SessionRef {
  constructor(
    private readonly deps: SessionRefDeps,
    private record: SessionMeta,
  ) {}

  get id(): string {
    return this.record.session_id;
  }

  /** The store record as read when the reference was opened (plus this reference's own writes). */
  get meta(): SessionMeta {
    return this.record;
  }

  /** Seeded messages were written (HistorySeeding): the record counts them. */
  appended(count: number): void {
    this.record = { ...this.record, message_count: this.record.message_count + count };
  }

  async describe(): Promise<SessionView> {
    return sessionView(this.record, await this.deps.commands.live(this.id));
  }

  /** Every setting of the session: its running workflow's, else the stored ones it loads when it comes back. */
  async settings(): Promise<SessionSettings> {
    return (await this.deps.commands.live(this.id))?.settings ?? storedSettings(this.record);
  }

  /** The settings as stored (what the workflow last persisted, or loads when it comes back). */
  storedSettings(): SessionSettings {
    return storedSettings(this.record);
  }

  /** Changes settings (session-settings-change.ts): the running workflow applies them, else the store keeps them. */
  async updateSettings(change: ClientSettingsChange): Promise<SessionSettings & { notice?: string }> {
    this.refuseIfJob();
    const { settings, stored } = await changeSettings(this.deps, this.record, change);
    if (stored) this.record = { ...this.record, metadata: { ...this.record.metadata, [RUNTIME_KEYS.settings]: stored } };
    return settings;
  }

  /** Starts (or queues) a turn; `images` are checked and stored first (PromptImageIntake), the workflow gets their references. */
  async prompt(prompt: PromptCommand, images: readonly RawPromptImage[] = []): Promise<PromptAccepted> {
    // A prompt with the steer behaviour (EDN's steer, a chat's message while a turn runs) into a job's
    // session steers the job's running turn (docs/jobs.md, "Steering a job"); one that would start a
    // turn is refused below, as any prompt into a job's session.
    const jobId = this.jobId;
    if (jobId !== undefined && prompt.behavior === 'steer' && images.length === 0) {
      const steered = await this.deps.commands.jobSteer(jobId, prompt.text, prompt.request_id);
      if (steered.delivered && steered.turn_id !== null) {
        return { turn_id: steered.turn_id, turn_number: turnNumberOf(steered.turn_id) ?? 0, agent_state: steered.agent_state ?? 'thinking', queued: false, duplicate: false, steered: true };
      }
    }
    this.refuseIfJob();
    const stored = images.length === 0 ? prompt : { ...prompt, images: await this.deps.images.store(this.record, prompt, images) };
    const accepted = await this.deps.commands.prompt(startInfo(this.record), stored);
    // The first prompt names a session the gateway titled after its folder (session-title.ts).
    this.record = await titleFromFirstPrompt(this.deps.store, this.record, prompt.text);
    return accepted;
  }

  /**
   * The turn a prompt with `requestId` started: from the session's durable record (written as the turn
   * begins, so it is read again here) or its queue, and Temporal for whether it still runs. Null when
   * the session never took the request (or has not begun its turn yet and is not queueing it).
   */
  async requestTurn(requestId: string): Promise<RequestTurn | null> {
    const fresh = await this.deps.store.get({ session_id: this.id });
    if (!fresh) throw new StrandError(ErrorCode.SESSION_NOT_FOUND, `no session ${this.id}`);
    this.record = fresh.meta;
    const hit = readSessionRecord(fresh.meta.metadata).requests.find((r) => r.request_id === requestId);
    if (!hit) {
      const queued = (await this.deps.commands.live(this.id))?.queue.find((q) => q.request_id === requestId);
      return queued ? { turn_id: turnId(queued.turn_number), status: 'queued' } : null;
    }
    const job = await this.deps.commands.job(turnWorkflowId(this.id, hit.turn_number));
    return { turn_id: hit.turn_id, status: job?.status === 'running' ? 'running' : 'finished', ...(job ? { started_at: job.started_at } : {}) };
  }

  /** A user's own shell command in the session's workspace (only while idle), recorded in the conversation. */
  runCommand(cmd: UserCommand): Promise<UserCommandResult> {
    this.refuseIfJob();
    return this.deps.commands.userCommand(startInfo(this.record), cmd);
  }

  abortCommand(): Promise<{ stopped: boolean }> {
    this.refuseIfJob();
    return this.deps.commands.abortUserCommand(this.id);
  }

  /**
   * File checkpoints (docs/undo.md): reverted or redone by the session's workflow on the worker; listed
   * apart from it (a read wakes no dormant session).
   */
  checkpointCommand(cmd: CheckpointCommand, requestId?: string): Promise<CheckpointCommandResult> {
    if (cmd.op === 'list') return this.deps.commands.listCheckpoints(this.id);
    this.refuseIfJob();
    return this.deps.commands.checkpoints(startInfo(this.record), cmd, requestId);
  }

  /** Stops turn `turnId` (or the running, else the next queued one), even before its workflow has started. */
  abort(requestId?: string, turn?: string): Promise<AbortResult> {
    this.refuseIfJob();
    return this.deps.commands.abort(this.id, requestId, turn);
  }

  abortRetry(requestId?: string) {
    this.refuseIfJob();
    return this.deps.commands.abortRetry(this.id, requestId);
  }

  /** Asks the running turn to stop at its next step boundary (psi's `interrupt`); a no-op when idle. */
  interrupt(requestId?: string) {
    this.refuseIfJob();
    return this.deps.commands.interrupt(this.id, requestId);
  }

  /** Steering of the running turn; a job's session steers the job's running turn (docs/jobs.md). */
  steer(text: string, requestId?: string) {
    const jobId = this.jobId;
    if (jobId !== undefined) return this.deps.commands.jobSteer(jobId, text, requestId);
    return this.deps.commands.steer(this.id, { text }, requestId);
  }

  compact(instructions?: string) {
    this.refuseIfJob();
    return this.deps.commands.compact(startInfo(this.record), instructions);
  }

  clearQueue(requestId?: string) {
    this.refuseIfJob();
    return this.deps.commands.clearQueue(this.id, requestId);
  }

  answerApproval(cmd: ApprovalCommand, requestId?: string) {
    this.refuseIfJob();
    return this.deps.commands.approval(this.id, cmd, requestId);
  }

  stillPending(toolCallId: string): Promise<boolean> {
    return approvalStillPending(this.deps, this.id, toolCallId);
  }

  pendingApprovals(): Promise<PendingApproval[]> {
    return pendingApprovals(this.deps, this.id);
  }

  /** Wakes a dormant session (its workflow comes back with its settings); a running one is left alone. */
  async resume(): Promise<{ session_id: string; message_count: number }> {
    this.refuseIfJob();
    await this.deps.commands.ensureRunning(startInfo(this.record));
    return { session_id: this.id, message_count: this.record.message_count };
  }

  /**
   * A new session holding the conversation up to `entry_id` (the store's fork), with the same project
   * and settings; request ids answered in the source are not carried over (they name its turns). The
   * fork of a job's session is an ordinary session: it belongs to no job.
   */
  async fork(entryId: string): Promise<{ session_id: string }> {
    const forked = await this.deps.store.fork({ session_id: this.id, entry_id: entryId });
    await this.deps.store.setMeta({ session_id: forked.session_id, metadata_patch: { [RUNTIME_KEYS.requests]: null, ...(this.jobId !== undefined ? { [JOB_SESSION_METADATA_KEY]: null } : {}) } });
    return { session_id: forked.session_id };
  }

  /**
   * Deletes the session: its running turn is aborted first, its workflow ended, then the store forgets
   * it, and its workflow is ended once more. A prompt reaches a running workflow without a store read
   * (SessionService.prompt), so no run may outlive the record: one that a prompt started between the
   * first end and the store's delete is ended by the second, and one started after the delete fails
   * to load its record.
   */
  async delete(): Promise<{ aborted_turn: string | null }> {
    this.refuseIfJob();
    const aborted = await this.deps.commands.abort(this.id);
    await this.deps.commands.close(this.id, 'session deleted');
    await this.deps.store.delete({ session_id: this.id });
    await this.deps.commands.close(this.id, 'session deleted');
    return { aborted_turn: aborted.turn_id };
  }

  /** Tokens, cost, message counts, steps, turns and context use of the session (get_session_stats). */
  async stats(): Promise<SessionStats & { model: string; budget?: Budget }> {
    const { model, budget } = await this.settings();
    return { model, ...(budget ? { budget } : {}), ...(await sessionStats(this.deps.store, this.id, { model, catalog: this.deps.catalog })) };
  }

  /** The user messages of the active branch, newest last: where a fork can start (get_fork_messages). */
  forkPoints() {
    return readForkPoints(this.deps.store, this.id);
  }

  /** The text of the newest assistant message on the active branch (get_last_assistant_text). */
  lastAssistantText() {
    return readLastAssistantText(this.deps.store, this.id);
  }

  async messages(query: { limit?: number; cursor?: string; from_entry_id?: string }) {
    const page = await this.deps.store.messages({ session_id: this.id, ...query });
    if (!page) throw new StrandError(ErrorCode.SESSION_NOT_FOUND, `no session ${this.id}`);
    return page;
  }

  /** Events after `afterSeq`, then live ones; without a cursor from the running turn's start (session-events.ts). */
  events(afterSeq?: number): Promise<EventSubscription> {
    return openSessionEvents(this.deps, this.id, afterSeq, this.jobId);
  }

  /** The job this session belongs to (docs/jobs.md), if it is a job's. */
  private get jobId(): string | undefined {
    return jobOf(this.record);
  }

  /**
   * A job's session (docs/jobs.md) is the job's: the job runs its turns as its own children and owns
   * its settings. A client's command (a prompt, settings, compaction, an abort, a revert, a shell
   * command, waking it, deleting it) would start a session workflow beside them, a second owner, or
   * change what the job runs on. Refused, naming the job and what a person can do instead; reads,
   * steering (passed to the job's running turn) and a fork (a new, ordinary session) stay allowed.
   * Every protocol passes through here.
   */
  private refuseIfJob(): void {
    const jobId = this.jobId;
    if (jobId === undefined) return;
    throw new StrandError(ErrorCode.JOB_SESSION, jobSessionRefusal(this.id, jobId), { session_id: this.id, job_id: jobId });
  }
}
