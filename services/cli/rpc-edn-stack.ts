import { EdnErrorCode, EdnOpError } from '../gateway/edn/protocol';
import type { SessionRuntime } from '../gateway/session-runtime';
import { StackUnavailable, type StackLink } from './stack-link';

/**
 * The stack for an EDN request of `strand rpc-edn`: a stack that does not answer is runtime/failed,
 * retryable, with the sentence that names what is down and how to start it.
 */
export async function ednStackReady(link: StackLink): Promise<SessionRuntime> {
  try {
    return await link.ready();
  } catch (err) {
    if (err instanceof StackUnavailable) throw new EdnOpError(EdnErrorCode.failed, err.message, { reason: 'stack-unavailable' }, true);
    throw err;
  }
}
