import { ErrorCode } from '../../../contracts/errors';
import { describeRequestIssues } from '../../../contracts/strict-request';
import {
  RPC_MAX_QUEUED,
  RPC_UNKNOWN_ID,
  rpcClientFrameSchema,
  rpcRequestIdSchema,
  type ChatRequest,
  type ChatStreamTerminal,
  type RpcClientFrame,
  type RpcServerFrame,
  type TaskId,
} from '../../../contracts/ws-rpc';
import { ChatRun, errorTerminal, type ChatAddress, type ChatRunDeps, type ChatSink } from './chat-run';
import { terminalFrame } from './frames';
import { RpcQueue } from './rpc-queue';
import { statusPayload } from './status';
import type { RunningTurns } from '../sessions/running-turns';
import { decodeTaskId, encodeTaskId, newRequestKey, newSessionId } from './task-ids';
import type { TaskRegistry } from './task-registry';
import { taskRecord } from './task-status';

export interface RpcConnectionDeps extends ChatRunDeps {
  tasks: TaskRegistry;
  /** Running turns across sessions, counted in `status.result`. */
  turns: RunningTurns;
}

/** One socket as the connection sees it. */
export interface RpcPeer {
  send(frame: RpcServerFrame): void;
  close(code: number, reason: string): void;
  /** False when auth is on and the upgrade carried no valid token. */
  authenticated: boolean;
  /** The owner of sessions (undefined with auth off: sessions then have no owner). */
  principal: string | undefined;
}

interface ChatEntry {
  id: string;
  taskId: TaskId;
  request: ChatRequest;
  address: ChatAddress;
}

/** The id a frame carries if it is a valid request id (an error about the frame goes there). */
function readableId(json: unknown): string {
  const id = json && typeof json === 'object' ? (json as { id?: unknown }).id : undefined;
  return rpcRequestIdSchema.safeParse(id).success ? (id as string) : RPC_UNKNOWN_ID;
}

const taskState = (t: ChatStreamTerminal) => (t.type === 'done' ? 'completed' : t.errorCode === 'ABORTED' ? 'cancelled' : 'failed');

/**
 * The protocol state of one WebSocket (docs/websocket.md): parses every client frame, runs one chat at
 * a time with up to RPC_MAX_QUEUED waiting (positions re-sent whenever the queue changes), answers
 * aborts, status and task lookups, and re-attaches to running tasks. Each chat is a ChatRun; this
 * class owns only the transport rules: ids, order, the queue, and exactly one terminal per chat.
 */
export class RpcConnection {
  private running: { entry: ChatEntry; run: ChatRun } | undefined;
  private readonly queue = new RpcQueue<ChatEntry>(RPC_MAX_QUEUED);
  private readonly attached = new Map<string, ChatRun>();
  /** Chats whose session is being resolved (request id), admitted one at a time in arrival order. */
  private readonly admitting = new Set<string>();
  private admission: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly deps: RpcConnectionDeps,
    private readonly peer: RpcPeer,
  ) {}

  /** One text frame from the client. */
  handle(raw: string): void {
    if (!this.peer.authenticated) return this.peer.close(1008, 'unauthorized');
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return this.peer.send({ id: RPC_UNKNOWN_ID, type: 'error', error: 'invalid RPC message: not JSON' });
    }
    const parsed = rpcClientFrameSchema.safeParse(json);
    if (!parsed.success) {
      return this.peer.send({ id: readableId(json), type: 'error', error: `invalid RPC message: ${describeRequestIssues(parsed.error, 'frame')}` });
    }
    void this.dispatch(parsed.data).catch((err: unknown) => {
      this.deps.log.error({ err, type: parsed.data.type }, 'an RPC request failed');
      this.peer.send({ id: parsed.data.id, type: 'error', error: err instanceof Error && 'code' in err ? err.message : 'internal error (see the gateway log)' });
    });
  }

  /** The socket is gone: running turns go on (any client may re-attach), waiting chats are dropped. */
  close(): void {
    this.closed = true;
    this.running?.run.detach();
    this.running = undefined;
    for (const entry of this.queue.drain()) this.deps.tasks.set(entry.taskId, 'cancelled');
    for (const run of this.attached.values()) run.detach();
    this.attached.clear();
  }

  /** Chats waiting in this connection's queue. */
  get queued(): number {
    return this.queue.length;
  }

  private isLive(id: string): boolean {
    return this.running?.entry.id === id || this.queue.has(id) || this.attached.has(id) || this.admitting.has(id);
  }

  private async dispatch(frame: RpcClientFrame): Promise<void> {
    switch (frame.type) {
      case 'status.get':
        return this.peer.send({ id: frame.id, type: 'status.result', status: await statusPayload(this.deps, this.peer.principal) });
      case 'chat.start':
        return this.start(frame.id, frame.payload.request);
      case 'chat.abort':
        return this.abort(frame.id, frame.payload.requestId);
      case 'task.status':
        return this.peer.send({ id: frame.id, type: 'task.status.result', task: await taskRecord(this.deps.sessions, this.deps.tasks, frame.payload.taskId, this.peer.principal) });
      case 'chat.attach':
        return this.attach(frame.id, frame.payload.taskId, frame.payload.afterSeq);
    }
  }

  /**
   * A chat's task id names its session, so the session is resolved before the chat is accepted: a
   * `sessionId` the client chose goes through SessionService.clientSessionId (scoped per principal
   * with auth on, a store read; as it is with auth off), a chat without one gets a fresh id. Chats
   * are admitted one at a time, in the order they came, so the queue keeps that order.
   */
  private start(id: string, request: ChatRequest): void {
    if (this.isLive(id)) return this.peer.send({ id, type: 'error', error: `request ${id} is still running: use a new id` });
    this.admitting.add(id);
    this.admit(async () => {
      let sessionId: string;
      try {
        sessionId = request.sessionId === undefined ? newSessionId() : await this.deps.sessions.clientSessionId(request.sessionId, this.peer.principal);
      } catch (err) {
        const terminal = errorTerminal(err);
        if (terminal.type === 'error' && terminal.errorCode === ErrorCode.INTERNAL) this.deps.log.error({ err }, 'a chat could not resolve its session');
        if (!this.closed) this.peer.send(terminalFrame(id, terminal));
        return;
      } finally {
        this.admitting.delete(id);
      }
      if (!this.closed) this.accept(id, request, sessionId);
    });
  }

  /** Runs `step` after every admission before it; a failure is logged, never breaks the chain. */
  private admit(step: () => Promise<void> | void): void {
    this.admission = this.admission.then(step).catch((err: unknown) => this.deps.log.error({ err }, 'an RPC request failed'));
  }

  private accept(id: string, request: ChatRequest, sessionId: string): void {
    const requestKey = newRequestKey();
    const entry: ChatEntry = { id, taskId: encodeTaskId(sessionId, requestKey), request, address: { sessionId, requestKey, principal: this.peer.principal } };
    if (this.running && this.queue.push(entry) === undefined) {
      return this.peer.send({ id, type: 'error', error: `queue is full (${RPC_MAX_QUEUED} chats waiting on this connection): try again when one has finished` });
    }
    this.deps.tasks.set(entry.taskId, 'accepted', this.peer.principal);
    this.peer.send({ id, type: 'chat.accepted', taskId: entry.taskId });
    if (this.running) {
      this.deps.tasks.set(entry.taskId, 'queued');
      this.sendPositions();
      return;
    }
    this.run(entry);
  }

  private run(entry: ChatEntry): void {
    const { id, taskId } = entry;
    const sink: ChatSink = {
      started: () => {
        this.deps.tasks.set(taskId, 'running');
        this.peer.send({ id, type: 'chat.started' });
      },
      event: (event, seq) => this.peer.send({ id, type: 'chat.event', event, ...(seq !== undefined ? { seq } : {}) }),
      terminal: (t) => {
        this.deps.tasks.set(taskId, taskState(t));
        this.peer.send(terminalFrame(id, t));
      },
    };
    const run = new ChatRun(this.deps, entry.address, sink);
    this.running = { entry, run };
    void run.start(entry.request).finally(() => {
      if (this.running?.run !== run) return;
      this.running = undefined;
      this.next();
    });
  }

  private next(): void {
    if (this.closed) return;
    const entry = this.queue.shift();
    if (!entry) return;
    this.sendPositions();
    this.run(entry);
  }

  private sendPositions(): void {
    for (const { item, position } of this.queue.positions()) this.peer.send({ id: item.id, type: 'chat.queued', position });
  }

  private abort(id: string, requestId: string): void {
    // A chat still being admitted is aborted once it is (running or waiting).
    if (this.admitting.has(requestId)) return this.admit(() => this.abort(id, requestId));
    const run = this.running?.entry.id === requestId ? this.running.run : this.attached.get(requestId);
    if (run) return this.peer.send({ id, type: 'chat.abort.result', requestId, aborted: run.abort() });
    const waiting = this.queue.remove(requestId);
    if (!waiting) return this.peer.send({ id, type: 'chat.abort.result', requestId, aborted: false });
    this.deps.tasks.set(waiting.taskId, 'cancelled');
    this.peer.send({ id, type: 'chat.abort.result', requestId, aborted: true });
    this.peer.send(terminalFrame(requestId, { type: 'error', errorMessage: 'the request was aborted before it started', errorCode: 'ABORTED', error: { code: 'ABORTED', kind: 'aborted' } }));
    this.sendPositions();
  }

  private attach(id: string, taskId: string, afterSeq: number | undefined): void {
    if (this.isLive(id)) return this.peer.send({ id, type: 'error', error: `request ${id} is still running: use a new id` });
    const address = decodeTaskId(taskId);
    if (!address) return this.peer.send(terminalFrame(id, { type: 'error', errorMessage: 'no such task', errorCode: 'TASK_NOT_FOUND', error: { code: 'TASK_NOT_FOUND' } }));
    const sink: ChatSink = {
      started: () => {
        this.peer.send({ id, type: 'chat.accepted', taskId });
        this.peer.send({ id, type: 'chat.started' });
      },
      event: (event, seq) => this.peer.send({ id, type: 'chat.event', event, ...(seq !== undefined ? { seq } : {}) }),
      terminal: (t) => this.peer.send(terminalFrame(id, t)),
    };
    const run = new ChatRun(this.deps, { ...address, principal: this.peer.principal }, sink);
    this.attached.set(id, run);
    void run.attach(afterSeq).finally(() => {
      if (this.attached.get(id) === run) this.attached.delete(id);
    });
  }
}
