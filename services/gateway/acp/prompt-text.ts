import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { RawPromptImage } from '../sessions/prompt-images';

/** Thrown for a prompt strand cannot take; the agent answers it with -32602 (invalid params). */
export class UnsupportedPrompt extends Error {
  override readonly name = 'UnsupportedPrompt';
}

const fence = (body: string) => {
  // A fence longer than any run of backticks inside, so embedded text cannot close it.
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
};

/** Said in place of the text of a prompt that is images only (a strand prompt always has text). */
export const IMAGES_ONLY_TEXT = '(see the attached image)';

/**
 * An ACP prompt as a strand prompt's text and images. Text blocks are joined as they are; a resource
 * link becomes a markdown link the model can read with its file tools; an embedded resource (the
 * editor's context: a file or a selection) is quoted in a fence under its URI; an embedded binary
 * resource is named only. Image blocks (`{type: "image", mimeType, data}`) become the prompt's
 * images, in order: the session service checks them (type, base64, caps) and the model's image
 * support. An image with only a `uri` is refused, as is audio (initialize says so).
 */
export function promptContent(blocks: ContentBlock[]): { text: string; images: RawPromptImage[] } {
  const parts: string[] = [];
  const images: RawPromptImage[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'image':
        if (!b.data) throw new UnsupportedPrompt('an image block needs its data (base64): strand does not fetch image URIs');
        images.push({ media_type: b.mimeType, data: b.data });
        break;
      case 'text':
        parts.push(b.text);
        break;
      case 'resource_link':
        parts.push(`[@${b.title ?? b.name}](${b.uri})`);
        break;
      case 'resource': {
        const r = b.resource;
        if ('text' in r) {
          const f = fence(r.text);
          parts.push(`\n${r.uri}:\n${f}\n${r.text}\n${f}\n`);
        } else {
          parts.push(`[@${r.uri}](${r.uri}) (binary, ${r.mimeType ?? 'unknown type'})`);
        }
        break;
      }
      default:
        throw new UnsupportedPrompt(`strand takes text, images, resource links and embedded text resources in prompts, not ${b.type} content`);
    }
  }
  const text = parts.join('');
  if (!text.trim()) {
    if (images.length) return { text: IMAGES_ONLY_TEXT, images };
    throw new UnsupportedPrompt('the prompt is empty');
  }
  return { text, images };
}
