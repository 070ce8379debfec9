import { ErrorCode, StrandError } from '../../../contracts/errors';
import {
  MAX_PROMPT_IMAGE_BYTES,
  MAX_PROMPT_IMAGES,
  MAX_PROMPT_IMAGES_TOTAL_BYTES,
  PROMPT_IMAGE_MEDIA_TYPES,
  type PromptImageMediaType,
} from '../../../contracts/prompt-images';

/** An image as a transport hands it over: a media type and base64, not yet checked. */
export interface RawPromptImage {
  media_type: string;
  data: string;
}

export interface DecodedPromptImage {
  mime: PromptImageMediaType;
  bytes: Uint8Array;
}

// Standard alphabet, padded (what every client's encoder writes); Node's decoder would skip anything
// else silently. A plain character class (with the length checked apart): a grouped repetition over
// megabytes overflows the regular expression engine's stack.
const BASE64_CHARS = /^[A-Za-z0-9+/]*={0,2}$/;
const isBase64 = (s: string) => s.length > 0 && s.length % 4 === 0 && BASE64_CHARS.test(s);

/**
 * The first bytes each format starts with. A provider refuses an image whose bytes are not of its
 * declared type only once the turn runs (a failed turn); checking here answers 400 at once instead.
 */
const SIGNATURES: Record<PromptImageMediaType, (b: Uint8Array) => boolean> = {
  'image/png': (b) => startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
  'image/jpeg': (b) => startsWith(b, [0xff, 0xd8, 0xff]),
  'image/gif': (b) => startsWith(b, [0x47, 0x49, 0x46, 0x38]),
  'image/webp': (b) => startsWith(b, [0x52, 0x49, 0x46, 0x46]) && startsWith(b.subarray(8), [0x57, 0x45, 0x42, 0x50]),
};

function startsWith(b: Uint8Array, prefix: number[]): boolean {
  return b.length >= prefix.length && prefix.every((x, i) => b[i] === x);
}

const invalid = (message: string) => new StrandError(ErrorCode.INVALID_REQUEST, message);
const mib = (n: number) => `${n / (1024 * 1024)} MiB`;

/**
 * Checks a prompt's images the same way for every transport (HTTP `images[]`, ACP image blocks):
 * at most MAX_PROMPT_IMAGES, a supported media type, well-formed base64 of bytes of that type,
 * within the per-image and per-prompt caps. Throws INVALID_REQUEST naming the image and the problem.
 */
export function decodePromptImages(images: readonly RawPromptImage[]): DecodedPromptImage[] {
  if (images.length > MAX_PROMPT_IMAGES) throw invalid(`a prompt takes at most ${MAX_PROMPT_IMAGES} images (got ${images.length})`);
  let total = 0;
  return images.map((image, i) => {
    const which = `image ${i + 1}`;
    if (!(PROMPT_IMAGE_MEDIA_TYPES as readonly string[]).includes(image.media_type)) {
      throw invalid(`${which}: media type "${image.media_type}" is not supported (use ${PROMPT_IMAGE_MEDIA_TYPES.join(', ')})`);
    }
    const mime = image.media_type as PromptImageMediaType;
    // Known too large from its length alone: refused before decoding megabytes.
    if (Math.floor((image.data.length * 3) / 4) - 2 > MAX_PROMPT_IMAGE_BYTES) throw invalid(`${which} is larger than ${mib(MAX_PROMPT_IMAGE_BYTES)} (the cap per image)`);
    if (!isBase64(image.data)) throw invalid(`${which}: data is not valid base64 (standard alphabet, padded, no line breaks)`);
    const bytes = new Uint8Array(Buffer.from(image.data, 'base64'));
    if (bytes.byteLength > MAX_PROMPT_IMAGE_BYTES) throw invalid(`${which} is ${bytes.byteLength} bytes: larger than ${mib(MAX_PROMPT_IMAGE_BYTES)} (the cap per image)`);
    if (!SIGNATURES[mime](bytes)) throw invalid(`${which}: the bytes are not a ${mime} image`);
    total += bytes.byteLength;
    if (total > MAX_PROMPT_IMAGES_TOTAL_BYTES) throw invalid(`the images of a prompt are at most ${mib(MAX_PROMPT_IMAGES_TOTAL_BYTES)} together`);
    return { mime, bytes };
  });
}
