import { z } from 'zod';
import { agentPhaseSchema } from './agent-events';
import { messagesReplySchema } from './session-store/functions';
import { messageSchema } from './session-store/messages';
import { budgetSchema, sessionSettingsSchema, thinkingLevelSchema } from './session-settings';

/**
 * Reply shapes of the HTTP REST API (docs/http.md), one per route and status. The gateway's
 * OpenAPI document is generated from these, and the HTTP conformance test checks every real answer
 * against that document, so a reply that grows a field or changes a type fails there first.
 */

const count = z.number().int().nonnegative();
const epochMs = z.number().int().describe('Milliseconds since epoch.');

/** `POST /api/sessions` → 201; the status is what a `GET` right after answers. */
export const sessionCreatedSchema = z.object({
  session_id: z.string(),
  status: z.enum(['active', 'dormant']).describe('`active`: its workflow was started; `dormant` only when Temporal could not be reached (the next command starts it).'),
  created_at: epochMs,
});

/** A session as `GET /api/sessions/{id}` and the list describe it: store facts plus the workflow's live state. */
export const sessionViewSchema = z.object({
  session_id: z.string(),
  status: z.enum(['active', 'dormant']).describe('`dormant` once its workflow idled out; the next command brings it back.'),
  agent_state: agentPhaseSchema,
  project_path: z.string(),
  model: z.string(),
  thinking_level: z.string(),
  queue_length: count,
  active_turn: z.string().nullable(),
  message_count: count,
  started_at: epochMs,
  updated_at: epochMs,
  title: z.string(),
  name: z.string().optional().describe('The name given to the session in its settings (`PATCH …/settings {name}`), when one was; clients show it instead of the title.'),
  budget: budgetSchema.optional().describe('The session\'s spending caps, when it has any (docs/budgets.md).'),
  spent: z.object({ cost_usd: z.number().nonnegative(), tokens: count }).optional().describe('What the session has spent: the cost and tokens recorded on its steps (the list only; what its caps are checked against).'),
});

/** A session in `GET /api/sessions`: as `GET` of one, or `unknown` when Temporal could not say (one session never fails the list). */
export const listedSessionSchema = sessionViewSchema.extend({
  status: z.enum(['active', 'dormant', 'unknown']).describe('`dormant` once its workflow idled out; `unknown` when Temporal did not answer for it (`status_reason` says why; the stored facts are still shown).'),
  status_reason: z.string().optional().describe('Why the status is `unknown`.'),
  agent_state: agentPhaseSchema.or(z.literal('unknown')),
});

/** `GET /api/sessions`: the caller's sessions only. */
export const sessionListSchema = z.object({ sessions: z.array(listedSessionSchema), next_cursor: z.string().optional() });

/** `POST /api/sessions/{id}/prompt` → 202. */
export const promptAcceptedReplySchema = z.object({
  status: z.literal('accepted'),
  agent_state: agentPhaseSchema,
  turn_id: z.string(),
  queued: z.boolean(),
  queue_position: z.number().int().positive().optional().describe('1-based place in the queue when `queued`.'),
});

/** `POST /api/sessions/{id}/steer` → 202. */
export const steerAcceptedSchema = z.object({ status: z.literal('accepted'), turn_id: z.string().nullable() });

/** `POST /api/sessions/{id}/interrupt`: answered once the turn has ended. */
export const interruptReplySchema = z.object({
  status: z.enum(['interrupted', 'not_running']),
  turn_id: z.string().nullable(),
  agent_state: agentPhaseSchema,
});

/** `DELETE /api/sessions/{id}`. */
export const sessionClosedSchema = z.object({
  status: z.literal('closed'),
  transcript_path: z.string().optional().describe('Where the markdown transcript was written (config `save_transcript`).'),
});

/** `POST /api/sessions/{id}/resume`. */
export const sessionResumedSchema = z.object({ status: z.literal('resumed'), session_id: z.string(), message_count: count });

/** `POST /api/sessions/{id}/fork` → 201. */
export const sessionForkedSchema = z.object({ session_id: z.string() });

/** `POST /api/sessions/{id}/abort-retry`. */
export const abortRetryReplySchema = z.object({ cancelled: z.boolean(), turn_id: z.string().nullable() });

/** `GET /api/sessions/{id}/fork-points`: the user messages of the active branch, oldest first. */
export const forkPointsSchema = z.object({ messages: z.array(z.object({ entry_id: z.string(), text: z.string() })) });

/** `GET /api/sessions/{id}/last-assistant-text`: nulls when the session has no answer yet. */
export const lastAssistantTextSchema = z.object({ entry_id: z.string().nullable(), text: z.string().nullable() });

/** Token and cost totals. */
export const usageTotalsSchema = z.object({ input: count, output: count, cache_read: count, cache_write: count, cost_usd: z.number().nonnegative() });

/** `GET /api/sessions/{id}/stats`. */
export const sessionStatsSchema = z.object({
  model: z.string(),
  usage: usageTotalsSchema,
  messages: z.object({ user: count, assistant: count, tool_results: count, total: count }),
  steps: count,
  turns: count,
  context: z.object({ tokens: count, window: count, share: z.number().nonnegative() }).describe("The last step's context against the model's window."),
  budget: budgetSchema.optional().describe("The session's spending caps, when it has any: `usage` is what they are checked against (docs/budgets.md)."),
});

/** `GET /api/sessions/{id}/messages`: a page of the store's messages. */
export const messagesPageSchema = messagesReplySchema.unwrap();

/** `POST /api/sessions/{id}/approve`. */
export const approvedSchema = z.object({ status: z.literal('approved'), tool_call_id: z.string() });

/** `POST /api/sessions/{id}/reject`. */
export const rejectedSchema = z.object({ status: z.literal('rejected'), tool_call_id: z.string() });

/** `GET /api/sessions/{id}/approvals`: tool calls waiting for a person, with their arguments. */
export const pendingApprovalsSchema = z.object({
  approvals: z.array(z.object({ tool_call_id: z.string(), tool: z.string(), params: z.unknown(), turn_id: z.string().nullable() })),
});

/** `POST /api/sessions/{id}/model`. */
export const modelChangedSchema = z.object({
  model: z.string(),
  thinking_level: thinkingLevelSchema,
  notice: z.string().optional().describe('Set when the model is not in the catalog (default limits, no price).'),
});

/** `POST /api/sessions/{id}/thinking`: the level after clamping to the model. */
export const thinkingChangedSchema = z.object({ thinking_level: thinkingLevelSchema, model: z.string() });

/** `POST /api/sessions/{id}/compact`. */
export const compactedSchema = z.object({ compacted: z.boolean(), summary: z.string(), tokens_before: count, tokens_after: count });

/** `PATCH /api/sessions/{id}/settings`: every setting after the change. */
export const settingsReplySchema = sessionSettingsSchema;

/** A turn running (or run) across sessions (`/api/turns`). */
export const turnSchema = z.object({
  job_id: z.string().describe('The turn\'s workflow id, `session:<id>:turn:<n>` (URL-encode it in paths). Named `job_id` for the clients of the older `/api/jobs` routes; it is no unattended job\'s id.'),
  session_id: z.string(),
  turn_id: z.string(),
  status: z.enum(['running', 'completed', 'failed', 'cancelled', 'terminated', 'timed_out', 'continued_as_new', 'unknown']),
  phase: z.string(),
  started_at: epochMs,
  owner: z.string().optional(),
  steps: count,
  cost_usd: z.number().nonnegative(),
  model: z.string().describe("The session's model (`provider/model`)."),
  tokens: z.object({ input: count, output: count }).describe('Tokens of the turn so far (its stored model steps).'),
  retry_attempt: count.describe('The provider retry under way for the running turn (0 = none).'),
  workflow_url: z.string().nullable().describe("The turn's workflow in the Temporal Web UI (STRAND_TEMPORAL_UI_URL), or null when none is configured."),
});

/** `GET /api/turns`: the caller's running turns, newest first. */
export const turnListSchema = z.object({ turns: z.array(turnSchema) });

/** `POST /api/turns/{id}/cancel`. */
export const turnCancelledSchema = z.object({ status: z.enum(['cancelled', 'not_running']) });

/** `GET /api/sessions/{id}/transcript?format=json`. */
export const transcriptDocumentSchema = z.object({
  session_id: z.string(),
  title: z.string(),
  project_path: z.string(),
  model: z.string(),
  started_at: epochMs,
  messages: z.array(z.object({ entry_id: z.string(), message: messageSchema })),
  files_changed: z.array(z.string()),
});

/** `GET /api/transcripts`. */
export const transcriptListSchema = z.object({
  transcripts: z.array(
    z.object({ session_id: z.string(), project_path: z.string(), started_at: epochMs, message_count: count, files_changed: z.array(z.string()) }),
  ),
});

/** `GET /healthz` → 200. */
export const healthyReplySchema = z.object({ ok: z.literal(true) });

/** `GET /healthz` → 503: which dependency did not answer, and why. */
export const unhealthyReplySchema = z.object({ ok: z.literal(false), missing: z.record(z.string(), z.string()) });

/** One model `GET /api/models` lists: what pickers show and send back (`ref` is what `POST …/model` takes as provider and model_id). */
const runnableModelSchema = z.object({
  ref: z.string().describe('`provider/id`, as sessions name their model.'),
  provider: z.string(),
  id: z.string(),
  name: z.string().describe('The catalog\'s display name (the id itself for a model the catalog does not know).'),
  context_window: count.describe('Tokens, as the catalog knows it (its default for an unknown model).'),
  thinking: z.boolean().describe('Whether the model supports a thinking level other than `off`.'),
});

/** `GET /api/models` → 200: the model a new session gets and the models this stack can run. */
export const modelsReplySchema = z.object({
  default_model: z.string().describe('What a new session gets when it names no model.'),
  models: z.array(runnableModelSchema),
  notice: z.string().optional().describe('Why the list is shorter than expected (a local model server that did not answer), when it is.'),
});
export type ModelsReply = z.infer<typeof modelsReplySchema>;
