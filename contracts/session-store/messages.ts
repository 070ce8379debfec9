import { z } from 'zod';

/**
 * The transcript vocabulary of the session store (docs/store.md):
 * content blocks, the four message roles, usage. Every writer and reader of the store shares these.
 */

const timestamp = z.number().int().describe('Milliseconds since epoch.');
const uint = z.number().int().nonnegative();

/** The atomic unit of message content. */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mime: string; ref?: string; bytes?: number }
  | { type: 'thinking'; text: string; signature?: string | null }
  | { type: 'function_call'; id: string; function_id: string; arguments?: unknown }
  | { type: 'function_result'; function_call_id: string; content: ContentBlock[]; is_error?: boolean | null };

/** Content blocks, recursive through function_result. */
export const contentBlockSchema: z.ZodType<ContentBlock, ContentBlock> = z.lazy(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({
      type: z.literal('image'),
      data: z.string().describe('Base64-encoded image bytes; empty when `ref` names where they are.'),
      mime: z.string(),
      /**
       * strand's extension of the spec's block (optional, so spec-only writers and readers still fit):
       * the bytes live in the prompt-images object store under this name (contracts/prompt-images.ts),
       * because an image inline would not fit a store request or event (NATS's 1 MiB default payload).
       */
      ref: z.string().optional().describe('Object name in the strand-prompt-images bucket holding the bytes (then `data` is empty).'),
      bytes: z.number().int().nonnegative().optional().describe('Decoded size of the image in bytes.'),
    }),
    z.object({ type: z.literal('thinking'), text: z.string(), signature: z.string().nullable().optional() }),
    z.object({ type: z.literal('function_call'), id: z.string(), function_id: z.string(), arguments: z.unknown().optional() }),
    z.object({
      type: z.literal('function_result'),
      function_call_id: z.string(),
      content: z.array(contentBlockSchema),
      is_error: z.boolean().nullable().optional(),
    }),
  ]),
);

/** Why an assistant message stopped. */
const stopReasonSchema = z.enum(['end', 'length', 'function_call', 'aborted', 'error']);
export type StopReason = z.infer<typeof stopReasonSchema>;

/** Coarse classification of a failed assistant message. */
const errorKindSchema = z.enum(['auth_expired', 'rate_limited', 'context_overflow', 'transient', 'permanent']);

/** Token and cost accounting. */
export const usageSchema = z.object({
  input: uint.nullable().optional(),
  output: uint.nullable().optional(),
  cache_read: uint.nullable().optional(),
  cache_write: uint.nullable().optional(),
  reasoning: uint.nullable().optional(),
  cost_usd: z.number().nullable().optional(),
});
export type Usage = z.infer<typeof usageSchema>;

const userMessageSchema = z.object({ role: z.literal('user'), content: z.array(contentBlockSchema), timestamp });

const assistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: z.array(contentBlockSchema),
  model: z.string(),
  provider: z.string(),
  stop_reason: stopReasonSchema,
  error_kind: errorKindSchema.nullable().optional(),
  error_message: z.string().nullable().optional(),
  native_stop_reason: z.string().nullable().optional(),
  usage: usageSchema.nullable().optional(),
  warnings: z.array(z.string()).nullable().optional(),
  timestamp,
});

const functionResultMessageSchema = z.object({
  role: z.literal('function_result'),
  function_call_id: z.string(),
  function_id: z.string(),
  content: z.array(contentBlockSchema),
  details: z.unknown().optional(),
  is_error: z.boolean().default(false),
  timestamp,
});

const customMessageSchema = z.object({
  role: z.literal('custom'),
  custom_type: z.string(),
  content: z.array(contentBlockSchema),
  details: z.unknown().optional(),
  display: z.string().nullable().optional(),
  timestamp,
});

/** The canonical transcript message, discriminated by `role`. */
export const messageSchema = z.discriminatedUnion('role', [
  userMessageSchema,
  assistantMessageSchema,
  functionResultMessageSchema,
  customMessageSchema,
]);
export type Message = z.infer<typeof messageSchema>;
export const messageRoleSchema = z.enum(['user', 'assistant', 'function_result', 'custom']);

/** A custom entry's payload as it travels in requests, pages and events. */
export const customPayloadSchema = z.object({ custom_type: z.string(), data: z.unknown().optional() });
