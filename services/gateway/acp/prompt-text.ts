import type { ContentBlock } from '@agentclientprotocol/sdk';

/** Thrown for a prompt strand cannot take; the agent answers it with -32602 (invalid params). */
export class UnsupportedPrompt extends Error {
  override readonly name = 'UnsupportedPrompt';
}

const fence = (body: string) => {
  // A fence longer than any run of backticks inside, so embedded text cannot close it.
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
};

/**
 * An ACP prompt as the text of a strand prompt (strand's turns take text). Text blocks are joined as
 * they are; a resource link becomes a markdown link the model can read with its file tools; an
 * embedded resource (the editor's context: a file or a selection) is quoted in a fence under its
 * URI. Images and audio are refused (initialize says so); an embedded binary resource is named only.
 */
export function promptText(blocks: ContentBlock[]): string {
  const parts: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
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
        throw new UnsupportedPrompt(`strand takes text, resource links and embedded text resources in prompts, not ${b.type} content`);
    }
  }
  const text = parts.join('');
  if (!text.trim()) throw new UnsupportedPrompt('the prompt is empty');
  return text;
}
