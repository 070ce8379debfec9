import { EdnErrorCode, EdnOpError } from '../../protocol';
import type { OpHandler } from '../op-context';

/**
 * Ops psi's clients send that have no counterpart in strand, answered with a clear error instead of
 * pretending: strand has no OAuth login (providers use API keys from the environment).
 */
export const unavailableOps: Record<string, OpHandler> = {
  login_begin: async (ctx) => {
    const configured = ctx.sessions.providers().join(', ');
    throw new EdnOpError(EdnErrorCode.failed, `strand has no login: providers use API keys from the environment of the gateway and the worker (ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL); configured now: ${configured}`);
  },
  login_complete: async () => {
    throw new EdnOpError(EdnErrorCode.noPendingLogin, 'no login is pending: strand uses API keys from the environment, not OAuth');
  },
};
