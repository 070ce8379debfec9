import type { TaskState } from '../../../contracts/ws-rpc';

/** What this gateway knows of a task it holds: the protocol's own states before the session has the turn. */
export interface LiveTask {
  state: TaskState;
  createdAt: string;
  updatedAt: string;
}

/**
 * Tasks accepted by this gateway process, newest kept: it answers for chats still waiting in a
 * connection's queue (no turn exists for them yet) or dropped from it, and feeds `/v1/status` counts.
 * Everything durable about a task comes from the session instead (see task-status.ts).
 */
export class TaskRegistry {
  private readonly tasks = new Map<string, LiveTask>();

  constructor(private readonly max = 10_000) {}

  set(taskId: string, state: TaskState, now: Date = new Date()): void {
    const at = now.toISOString();
    const previous = this.tasks.get(taskId);
    this.tasks.delete(taskId);
    this.tasks.set(taskId, { state, createdAt: previous?.createdAt ?? at, updatedAt: at });
    // Oldest first in a Map: forget those beyond the bound.
    for (const id of this.tasks.keys()) {
      if (this.tasks.size <= this.max) break;
      this.tasks.delete(id);
    }
  }

  get(taskId: string): LiveTask | undefined {
    return this.tasks.get(taskId);
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
