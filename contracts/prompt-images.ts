import { z } from 'zod';

/**
 * Images attached to a prompt (docs/images.md). A client sends base64 bytes; the gateway checks them,
 * stores the bytes in the NATS object store bucket {@link PROMPT_IMAGES_BUCKET} and from there on
 * only a reference travels: the prompt update, the queued prompt, the turn's input and the model
 * step's input carry {@link PromptImageRef}s, and the user message keeps an image block whose bytes
 * stay in the bucket. The model step loads them when it builds the provider request.
 *
 * Why references: Temporal refuses payloads over 2 MB (and a history over its blob limit), and a NATS
 * message (the store's requests and events) is 1 MiB by default, while an image is up to 5 MiB. An
 * object store chunks what it holds, so neither limit applies to the bytes themselves.
 *
 * Workflow-safe (zod only): the session and turn workflows import these shapes.
 */

/** The media types every image-capable provider strand speaks accepts (Anthropic's list; OpenAI takes the same). */
export const PROMPT_IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
const promptImageMediaTypeSchema = z.enum(PROMPT_IMAGE_MEDIA_TYPES);
export type PromptImageMediaType = z.infer<typeof promptImageMediaTypeSchema>;

/** Decoded bytes of one image: Anthropic's own per-image limit, so no image is refused later by the provider. */
export const MAX_PROMPT_IMAGE_BYTES = 5 * 1024 * 1024;
/** Images per prompt: enough for a few screenshots, few enough that every later step re-sending them stays cheap. */
export const MAX_PROMPT_IMAGES = 8;
/**
 * Decoded bytes of all the images of one prompt. Base64 is 4/3 of that (8 MiB), which leaves 2 MiB
 * of the gateway's default 10 MiB body limit (STRAND_MAX_BODY_BYTES) to the text: a prompt within
 * these caps is never refused 413, so the body limit needs no raising for images.
 */
export const MAX_PROMPT_IMAGES_TOTAL_BYTES = 6 * 1024 * 1024;

/** The NATS JetStream object store bucket holding prompt images, named by the SHA-256 of their bytes. */
export const PROMPT_IMAGES_BUCKET = 'strand-prompt-images';

/** An image as a client sends it (HTTP `images[]`; ACP image blocks are mapped to it). */
export const promptImageUploadSchema = z.strictObject({
  media_type: promptImageMediaTypeSchema.describe('One of image/png, image/jpeg, image/gif, image/webp.'),
  data: z.string().describe(`Base64 of the image bytes (standard alphabet, padded); at most ${MAX_PROMPT_IMAGE_BYTES} bytes decoded.`),
});

/** A stored prompt image as the prompt carries it to the turn: where the bytes are, never the bytes. */
export const promptImageRefSchema = z.object({
  /** The object's name in {@link PROMPT_IMAGES_BUCKET}: `sha256-<hex>` of the bytes (the same image is stored once). */
  ref: z.string().min(1).max(200),
  mime: promptImageMediaTypeSchema,
  /** Decoded size, for transcripts and clients (they never get the bytes inline). */
  bytes: z.number().int().nonnegative(),
});
export type PromptImageRef = z.infer<typeof promptImageRefSchema>;

/** The object name of an image's bytes (content-addressed: a retried upload stores nothing new). */
export function promptImageObjectName(sha256Hex: string): string {
  return `sha256-${sha256Hex}`;
}
