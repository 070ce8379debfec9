import type { TaskState } from '../../../contracts/ws-rpc';

/** What this gateway knows of a task it holds: the protocol's own states before the session has the turn. */
export interface LiveTask {
  state: TaskState;
  createdAt: string;
  updatedAt: string;
}

/** A task as held: its state and the principal that started it (undefined with auth off). */
interface HeldTask extends LiveTask {
  owner: string | undefined;
}

/**
 * Tasks accepted by this gateway process, newest kept: it answers for chats still waiting in a
 * connection's queue (no turn exists for them yet) or dropped from it, and feeds `/v1/status` counts.
 * Everything durable about a task comes from the session instead (see task-status.ts).
 */
export class TaskRegistry {
  private readonly tasks = new Map<string, HeldTask>();

  constructor(private readonly max = 10_000) {}

  /** Records a task's state; the first call names its owner, which later calls keep. */
  set(taskId: string, state: TaskState, owner?: string, now: Date = new Date()): void {
    const at = now.toISOString();
    const previous = this.tasks.get(taskId);
    this.tasks.delete(taskId);
    this.tasks.set(taskId, { state, createdAt: previous?.createdAt ?? at, updatedAt: at, owner: previous ? previous.owner : owner });
    // Oldest first in a Map: forget those beyond the bound.
    for (const id of this.tasks.keys()) {
      if (this.tasks.size <= this.max) break;
      this.tasks.delete(id);
    }
  }

  /** The task as its owner sees it; another principal's task is not there (as an unknown one). */
  get(taskId: string, principal: string | undefined): LiveTask | undefined {
    const held = this.tasks.get(taskId);
    if (!held || held.owner !== principal) return undefined;
    const { owner: _owner, ...task } = held;
    return task;
  }

  count(state: TaskState): number {
    let n = 0;
    for (const t of this.tasks.values()) if (t.state === state) n++;
    return n;
  }
}

/**
 * This gateway process's tasks: shared by the WebSocket endpoint and the HTTP routes of the same
 * protocol (`/v1/status`, `/v1/chat/stream`), which are mounted separately.
 */
export const processTasks = new TaskRegistry();
