/**
 * Names the worker registers and the ids Temporal sees. Callers (gateway, tests, CLI) use these and
 * never import workflow code, so workflows stay private to the worker.
 */

/** Registered workflow type names. */
export const SESSION_WORKFLOW_TYPE = 'sessionWorkflow';
export const TURN_WORKFLOW_TYPE = 'turnWorkflow';
/** A read of a session's file checkpoints, apart from its session workflow (workflows/checkpoint-list.ts). */
export const CHECKPOINT_LIST_WORKFLOW_TYPE = 'checkpointListWorkflow';

/** One checkpoint listing's workflow id (each read its own). */
export function checkpointListWorkflowId(sessionId: string, readId: string): string {
  return `session:${sessionId}:checkpoints:${readId}`;
}

/** The session workflow's id: one running entity workflow per session. */
export function sessionWorkflowId(sessionId: string): string {
  return `session:${sessionId}`;
}

/** A turn's child workflow id: unique per session and turn number, visible in the Temporal UI. */
export function turnWorkflowId(sessionId: string, turnNumber: number): string {
  return `session:${sessionId}:turn:${turnNumber}`;
}

/**
 * The child workflow of a `task` call (docs/subagents.md): derived from the parent turn's workflow id
 * and the call, so a retried or replayed parent never starts a second one.
 */
export function subagentWorkflowId(parentTurnWorkflowId: string, toolCallId: string): string {
  return `${parentTurnWorkflowId}:task:${toolCallId}`;
}

/** The turn id clients see and entry ids derive from (`t3:user`, `t3:s0:assistant`). */
export function turnId(turnNumber: number): string {
  return `t${turnNumber}`;
}

/** The turn number of a turn id built by `turnId`; undefined for anything else. */
export function turnNumberOf(id: string): number | undefined {
  const match = /^t([1-9][0-9]*)$/.exec(id);
  return match ? Number(match[1]) : undefined;
}

/**
 * Deterministic store entry ids, so a retried activity never writes a message twice. Entries a person
 * asks for between turns (a manual compaction, their own shell command) take a unique part the
 * workflow draws once (`wf.uuid4()`), so a retried activity still writes once.
 */
export const entryIds = {
  user: (turn: string) => `${turn}:user`,
  assistant: (turn: string, step: number) => `${turn}:s${step}:assistant`,
  tool: (turn: string, step: number, callId: string) => `${turn}:s${step}:tool:${callId}`,
  /** The `index`-th steering message taken after step `step`. */
  steer: (turn: string, step: number, index: number) => `${turn}:s${step}:steer:${index}`,
  /** A compaction a turn runs before step `step` (past the threshold, or after an overflow). */
  turnCompaction: (turn: string, step: number, reason: 'threshold' | 'overflow') => `${turn}:s${step}:compact:${reason}`,
  manualCompaction: (unique: string) => `compact:${unique}`,
  userCommand: (unique: string) => `cmd:${unique}`,
};

/**
 * The event id of the `session.state` a turn's first model step publishes with `turn.started` when
 * the turn announces its own start. The turn publishes a session part that changed before its first
 * report under this id too (workflows/turn/turn-state.ts), so JetStream keeps whichever came first.
 */
export const turnStartStateId = (turn: string) => `${turn}:running`;
