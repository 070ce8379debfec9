import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ContentBlock } from '../../contracts/session-store/messages';
import { redactSecrets } from '../../contracts/mcp';
import type { ToolOutcome } from '../tool-calls/ledger';

/**
 * Images a tool returns travel inline in the stored result message and the ledger entry, both NATS
 * messages (1 MiB by default): larger ones are replaced by a line saying so.
 */
const MAX_INLINE_IMAGE_BASE64 = 512 * 1024;
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/**
 * An MCP tool result as the model reads it: text stays text, images become image blocks (the
 * provider request builders send them where the model takes images), resources become text headed
 * by their URI, audio and binary resources a line naming them. `isError` makes it an error result.
 * Secret values of the server's config are masked in every text, in case a server echoes them.
 */
export function outcomeOfMcpResult(result: CallToolResult, secrets: readonly string[]): ToolOutcome {
  const blocks: ContentBlock[] = [];
  const mask = (t: string) => redactSecrets(t, secrets);
  for (const item of result.content ?? []) {
    switch (item.type) {
      case 'text':
        blocks.push({ type: 'text', text: mask(item.text) });
        break;
      case 'image':
        if (!IMAGE_TYPES.has(item.mimeType)) blocks.push({ type: 'text', text: `(an image of type ${item.mimeType} was left out: unsupported type)` });
        else if (item.data.length > MAX_INLINE_IMAGE_BASE64) blocks.push({ type: 'text', text: `(an image of ${Math.round((item.data.length * 3) / 4 / 1024)} KiB was left out: larger than ${MAX_INLINE_IMAGE_BASE64 / 1024} KiB of base64)` });
        else blocks.push({ type: 'image', mime: item.mimeType, data: item.data });
        break;
      case 'audio':
        blocks.push({ type: 'text', text: `(audio of type ${item.mimeType} was left out)` });
        break;
      case 'resource': {
        const r = item.resource;
        blocks.push({ type: 'text', text: 'text' in r ? mask(`[resource ${r.uri}]\n${r.text}`) : `[resource ${r.uri}] (${r.mimeType ?? 'binary'} content left out)` });
        break;
      }
      case 'resource_link':
        blocks.push({ type: 'text', text: mask(`[resource link ${item.uri}]${item.description ? ` ${item.description}` : ''}`) });
        break;
    }
  }
  if (blocks.length === 0 && result.structuredContent !== undefined) blocks.push({ type: 'text', text: mask(JSON.stringify(result.structuredContent)) });
  const text = blocks.map((b) => (b.type === 'text' ? b.text : b.type === 'image' ? `[image ${b.mime}]` : '')).filter((t) => t !== '').join('\n');
  const is_error = result.isError === true;
  const hasImage = blocks.some((b) => b.type === 'image');
  return { content: text || (is_error ? 'The tool failed without saying why.' : '(no output)'), is_error, ...(hasImage ? { blocks } : {}) };
}
