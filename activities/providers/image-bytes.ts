import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../contracts/failures';
import type { PromptImageStore } from '../../contracts/prompt-image-store';
import type { ContentBlock } from '../../contracts/session-store/messages';
import type { ProviderMessage } from './types';

export type PromptImageReader = Pick<PromptImageStore, 'get'>;

/**
 * The context with every referenced image's bytes filled in: user messages keep prompt images as
 * references (contracts/prompt-images.ts), the providers' request builders need base64. Each distinct
 * image is loaded once per step. An image the bucket no longer has becomes a line of text saying so
 * (the conversation goes on without it); a bucket that cannot be read fails the step as retryable
 * infrastructure, like an unreachable store.
 */
export async function withImageBytes(messages: ProviderMessage[], images: PromptImageReader | undefined): Promise<ProviderMessage[]> {
  const refs = new Set<string>();
  for (const m of messages) for (const b of m.content) if (b.type === 'image' && b.ref && !b.data) refs.add(b.ref);
  if (refs.size === 0) return messages;
  const loaded = new Map<string, string | null>();
  await Promise.all(
    [...refs].map(async (ref) => {
      if (!images) return void loaded.set(ref, null);
      try {
        const bytes = await images.get(ref);
        loaded.set(ref, bytes ? Buffer.from(bytes).toString('base64') : null);
      } catch (err) {
        throw ApplicationFailure.retryable(`loading prompt image ${ref}: ${err instanceof Error ? err.message : String(err)}`, FailureType.STORE_UNAVAILABLE);
      }
    }),
  );
  const fill = (b: ContentBlock): ContentBlock => {
    if (b.type !== 'image' || !b.ref || b.data) return b;
    const data = loaded.get(b.ref);
    return data ? { type: 'image', mime: b.mime, data } : { type: 'text', text: `(an image (${b.mime}) was omitted: its bytes are no longer stored)` };
  };
  return messages.map((m) => ({ ...m, content: m.content.map(fill) }) as ProviderMessage);
}
