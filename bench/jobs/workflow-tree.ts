import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { countHistory, type Counts } from '../capacity/temporal-actions';

/**
 * Temporal's cost of one unit of work (a job, or a baseline session's turn) read from the histories:
 * the root workflow and every child it started, and theirs, found through the
 * StartChildWorkflowExecutionInitiated events. The actions are counted as bench/capacity counts them
 * (temporal-actions.ts: a client start, a child start, activity attempts, timers, search-attribute
 * upserts, signals received, updates accepted, local-activity markers).
 */
export interface TreeCost {
  actions: Counts;
  events: Counts;
  /** Workflow ids of the tree, the root first. */
  workflows: string[];
}

export async function workflowTreeCost(client: Client, rootId: string): Promise<TreeCost> {
  const actions: Counts = {};
  const events: Counts = {};
  const workflows: string[] = [];
  const todo = [rootId];
  while (todo.length > 0) {
    const id = todo.shift()!;
    workflows.push(id);
    const history = await client.workflow.getHandle(id).fetchHistory();
    countHistory(history, id === rootId, actions, events);
    for (const e of history.events ?? []) {
      const child = e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
      if (child) todo.push(child);
    }
  }
  return { actions, events, workflows };
}

const millis = (d: Date | undefined) => (d ? d.getTime() : NaN);

/** When a workflow started and closed (server time, epoch ms; close NaN while it runs). */
export async function workflowTimes(client: Client, id: string): Promise<{ startedAt: number; closedAt: number; status: string }> {
  const d = await client.workflow.getHandle(id).describe();
  return { startedAt: millis(d.startTime), closedAt: millis(d.closeTime), status: d.status.name };
}

/**
 * Waits for a workflow's end with Temporal's long poll (no polling loop that would itself load the
 * server), waiting for the workflow to exist first: a prompt's turn is started after the prompt's
 * answer. Answers the result; a workflow that failed throws.
 */
export async function resultOf<T>(client: Client, id: string, existWithinMs = 120_000): Promise<T> {
  const deadline = Date.now() + existWithinMs;
  for (;;) {
    try {
      return (await client.workflow.getHandle(id).result()) as T;
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
