import { EdnErrorCode, EdnOpError } from '../../protocol';
import type { OpHandler } from '../op-context';

/**
 * Ops psi's clients send that have no counterpart in strand, answered with a clear error instead of
 * pretending: strand has no OAuth login (providers use API keys from the environment), and shell
 * commands run only inside the agent's tools on the worker (the gateway runs nothing itself).
 */
export const unavailableOps: Record<string, OpHandler> = {
  login_begin: async (ctx) => {
    const configured = ctx.sessions.providers().join(', ');
    throw new EdnOpError(EdnErrorCode.failed, `strand has no login: providers use API keys from the environment of the gateway and the worker (ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL); configured now: ${configured}`);
  },
  login_complete: async () => {
    throw new EdnOpError(EdnErrorCode.noPendingLogin, 'no login is pending: strand uses API keys from the environment, not OAuth');
  },
  bash: async () => {
    throw new EdnOpError(EdnErrorCode.failed, 'strand runs shell commands only as the agent\'s tool (on the worker, in the session\'s project): ask for it in a prompt, e.g. "run `ls`"');
  },
  abort_bash: async () => {
    throw new EdnOpError(EdnErrorCode.failed, 'strand runs no shell commands outside the agent\'s tools: abort stops the running turn and its command');
  },
};
