import { z } from 'zod';
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import { agentPhaseSchema } from './agent-events';
import { modelIdSchema } from './models';

/**
 * Inputs, outputs and message definitions of the session and turn workflows. Callers (gateway,
 * tests) import these instead of workflow code, so workflows stay private to the worker.
 */

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

/** How the session workflow starts (or is re-created after idling out / continuing as new). */
export const sessionWorkflowInputSchema = z.object({
  session_id: z.string().min(1),
  project_path: z.string(),
  model: modelIdSchema,
  thinking_level: z.string().default('off'),
  /** Completes the workflow after this long without a command; the store keeps the session. */
  idle_timeout_ms: z.number().int().positive().default(30 * 60 * 1000),
  /** Carried across continue-as-new; absent on a fresh start, which reads it from the store. */
  last_turn: z.number().int().nonnegative().optional(),
});
export type SessionWorkflowInput = z.input<typeof sessionWorkflowInputSchema>;

/** Why a session workflow run ended (it never fails on purpose). */
export type SessionWorkflowResult = { reason: 'idle'; last_turn: number };

/** A prompt as the gateway sends it; `request_id` becomes the update id (idempotent prompts). */
export const promptInputSchema = z.object({
  text: z.string().min(1, 'prompt text must not be empty'),
  request_id: z.string().min(1).max(200).optional(),
});
export type PromptInput = z.infer<typeof promptInputSchema>;

/** The update's reply once the turn has started. */
export const promptAcceptedSchema = z.object({
  turn_id: z.string(),
  turn_number: z.number().int().positive(),
  agent_state: agentPhaseSchema,
});
export type PromptAccepted = z.infer<typeof promptAcceptedSchema>;

/** What a query of the session returns: small runtime state, never the transcript. */
export const sessionSnapshotSchema = z.object({
  session_id: z.string(),
  phase: agentPhaseSchema,
  model: z.string(),
  thinking_level: z.string(),
  active_turn: z.string().nullable(),
  last_turn: z.number().int().nonnegative(),
  queue_length: z.number().int().nonnegative(),
});
export type SessionSnapshot = z.infer<typeof sessionSnapshotSchema>;

/** Input of one turn's child workflow. */
export const turnWorkflowInputSchema = z.object({
  session_id: z.string(),
  turn_number: z.number().int().positive(),
  text: z.string(),
  model: modelIdSchema,
  thinking_level: z.string(),
  /** Bounds the model ↔ tools loop. */
  max_steps: z.number().int().positive().default(25),
});
export type TurnWorkflowInput = z.input<typeof turnWorkflowInputSchema>;

/** How a turn ended, reported to the session workflow. */
export type TurnWorkflowResult = { turn_id: string; outcome: 'done' | 'error' | 'aborted'; steps: number };

/**
 * Starts a turn. The validator rejects it while a turn runs (ApplicationFailure type
 * `SESSION_BUSY`) before anything reaches history; the reply comes once the child turn started.
 */
export const promptUpdate = defineUpdate<PromptAccepted, [PromptInput]>('prompt');

/** Reads the session's runtime state. */
export const sessionStateQuery = defineQuery<SessionSnapshot>('sessionState');

/** ApplicationFailure types the workflows raise, matched by the gateway. */
export const WorkflowFailureType = {
  SESSION_BUSY: 'SESSION_BUSY',
  INVALID_PROMPT: 'INVALID_PROMPT',
} as const;
