/**
 * Names the worker registers and the ids Temporal sees. Callers (gateway, tests, CLI) use these and
 * never import workflow code, so workflows stay private to the worker.
 */

/** Registered workflow type names. */
export const SESSION_WORKFLOW_TYPE = 'sessionWorkflow';
export const TURN_WORKFLOW_TYPE = 'turnWorkflow';

/** The session workflow's id: one running entity workflow per session. */
export function sessionWorkflowId(sessionId: string): string {
  return `session:${sessionId}`;
}

/** A turn's child workflow id: unique per session and turn number, visible in the Temporal UI. */
export function turnWorkflowId(sessionId: string, turnNumber: number): string {
  return `session:${sessionId}:turn:${turnNumber}`;
}

/** The turn id clients see and entry ids derive from (`t3:user`, `t3:s0:assistant`). */
export function turnId(turnNumber: number): string {
  return `t${turnNumber}`;
}

/** Deterministic store entry ids, so a retried activity never writes a message twice. */
export const entryIds = {
  user: (turn: string) => `${turn}:user`,
  assistant: (turn: string, step: number) => `${turn}:s${step}:assistant`,
  tool: (turn: string, step: number, callId: string) => `${turn}:s${step}:tool:${callId}`,
};
