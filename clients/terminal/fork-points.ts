import type { ChatBlock } from './chat-blocks';

/**
 * Where a fork from a shown message starts, as both chat clients (`strand chat` and the web page) say
 * it. (The prompts of turns another client started are read from the same fork points:
 * clients/core/prompt-reader.ts.)
 */

/**
 * The entry a fork from this block starts at, or undefined when it cannot be a fork's end: a prompt
 * (or a steering message), or an answer once it is stored. An answer that asked for tools is not one:
 * a session ending in calls without their results cannot go on.
 */
export function forkEntryOf(block: ChatBlock): string | undefined {
  if (block.kind === 'user') return block.entryId;
  if (block.kind === 'assistant' && block.done && block.stopReason !== 'function_call') return block.entryId;
  return undefined;
}
