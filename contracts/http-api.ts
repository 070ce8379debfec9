import { z } from 'zod';
import { ErrorCode } from './errors';
import { mcpServersRequestSchema } from './mcp';
import { modelIdSchema } from './models';
import { MAX_PROMPT_IMAGES, promptImageUploadSchema } from './prompt-images';
import { approvalPolicyChangeSchema, budgetChangeSchema, budgetSchema, thinkingLevelSchema } from './session-settings';

/**
 * Request shapes of the HTTP REST API (docs/http.md). The gateway validates every body and
 * query against these before a handler runs.
 */

/** `POST /api/sessions`. */
export const createSessionBodySchema = z.strictObject({
  project_path: z.string().min(1, 'project_path is required'),
  model: modelIdSchema.optional(),
  title: z.string().max(500).optional(),
  config: z
    .object({
      auto_approve_readonly: z.boolean().optional(),
      save_transcript: z.boolean().optional(),
      approval_timeout_s: z.number().int().positive().optional(),
    })
    .strict()
    .optional(),
  /** The session's own MCP servers (docs/mcp.md), by name; env and header values are never returned. */
  mcp_servers: mcpServersRequestSchema.optional(),
});

/** `POST /api/sessions/{id}/prompt`. */
export const promptBodySchema = z.strictObject({
  text: z.string().min(1, 'text must not be empty'),
  context: z
    .strictObject({
      current_file: z.string().optional(),
      cursor_position: z.unknown().optional(),
      visible_region: z.unknown().optional(),
    })
    .optional(),
  /** Checked by the gateway (caps, base64, type), stored, and sent to the model with the text (docs/images.md). */
  images: z.array(promptImageUploadSchema).max(MAX_PROMPT_IMAGES, `a prompt takes at most ${MAX_PROMPT_IMAGES} images`).optional(),
  request_id: z.string().min(1).max(200).optional(),
  /** Caps for this prompt's turn ("per job"): the lower of these and the session's apply (docs/budgets.md). */
  budget: budgetSchema.strict().optional(),
});

const nonNegativeInt = z
  .string()
  .regex(/^\d+$/, 'must be a non-negative integer')
  .transform(Number);

/** Query of `GET /api/sessions/{id}/messages`. */
export const messagesQuerySchema = z.object({
  limit: nonNegativeInt.optional(),
  cursor: z.string().optional(),
  from_entry_id: z.string().optional(),
});

/** Query of `GET /api/sessions`. */
export const listSessionsQuerySchema = z.object({
  limit: nonNegativeInt.optional(),
  cursor: z.string().optional(),
  status: z.enum(['idle', 'working', 'done', 'error']).optional(),
  /** Only the sessions of this project (its `project_path`, exactly). */
  project: z.string().min(1).optional(),
});

/** Where an SSE read starts: `Last-Event-ID` header or `?after=`. */
export const eventsAfterSchema = nonNegativeInt.describe('A sequence number: the stream starts with the first event after it.');


/**
 * Query of `POST /api/sessions/{id}/prompt`. Any value but `1` (or none) keeps the default: a prompt
 * sent while a turn runs is refused with 409 SESSION_BUSY. Kept a plain string so clients that send
 * `queue=0` or `queue=` are not refused.
 */
export const promptQuerySchema = z.object({
  queue: z.string().optional().describe('`1`: queue the prompt behind the running turn instead of answering 409 SESSION_BUSY.'),
});

/** Formats of `GET /api/sessions/{id}/transcript`. */
export const transcriptFormatSchema = z.enum(['json', 'markdown', 'org']);

/** Query of `GET /api/sessions/{id}/transcript`: no `format`, or an empty one, means `json`. */
export const transcriptQuerySchema = z.object({
  format: z.union([transcriptFormatSchema, z.literal('')]).optional().describe('`json` (the default: also when empty), `markdown` or `org`.'),
});

/** Query of `GET /api/transcripts`. */
export const transcriptsQuerySchema = z.object({
  project: z.string().optional().describe("Only this project's sessions (their `project_path`, exactly); empty means every project."),
});

/** `POST /api/sessions/{id}/approve`. */
export const approveBodySchema = z.strictObject({
  tool_call_id: z.string().min(1, 'tool_call_id is required'),
  /** Also approve every later call of the same tool in this session. */
  always: z.boolean().optional(),
});

/** `POST /api/sessions/{id}/reject`. */
export const rejectBodySchema = z.strictObject({ tool_call_id: z.string().min(1, 'tool_call_id is required'), reason: z.string().max(2000).optional() });

/** `POST /api/sessions/{id}/steer`. */
export const steerBodySchema = z.strictObject({ text: z.string().min(1, 'text must not be empty'), request_id: z.string().min(1).max(200).optional() });

/** `POST /api/sessions/{id}/fork`. */
export const forkBodySchema = z.strictObject({ entry_id: z.string().min(1, 'entry_id is required') });

/** `POST /api/sessions/{id}/model`: a provider and its model id, or `cycle: true` for the next model. */
export const modelBodySchema = z.union([
  z.strictObject({ provider: z.string().min(1), model_id: z.string().min(1) }),
  z.strictObject({ cycle: z.literal(true) }),
]);

/** `POST /api/sessions/{id}/thinking`: a level, or `cycle: true` for the next one the model supports. */
export const thinkingBodySchema = z.union([z.strictObject({ level: thinkingLevelSchema }), z.strictObject({ cycle: z.literal(true) })]);

/** `PATCH /api/sessions/{id}/settings` (strand extension): the other settings. */
export const settingsBodySchema = z.strictObject({
  auto_retry: z.boolean().optional(),
  auto_compaction: z.boolean().optional(),
  approval: approvalPolicyChangeSchema.optional(),
  name: z.string().max(200).optional(),
  /** Spending caps `{max_cost_usd, max_tokens}`: given fields replace, null clears a cap (docs/budgets.md). */
  budget: budgetChangeSchema.optional(),
});

/** `POST /api/sessions/{id}/compact`. */
export const compactBodySchema = z.strictObject({ instructions: z.string().max(4000).optional() });

/**
 * The body of every error answer (docs/http.md, "Errors"): the code decides the HTTP status;
 * `details` is an object, empty unless the code has more to say.
 */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.enum(ErrorCode),
    message: z.string(),
    details: z.record(z.string(), z.unknown()),
  }),
});
