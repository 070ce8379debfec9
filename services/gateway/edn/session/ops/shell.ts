import type { OpHandler } from '../op-context';
import { optInt, text } from '../params';

/**
 * psi's `bash` / `abort_bash`: a command the user runs themselves in the session's workspace. The
 * session's workflow runs it on the worker with the agent's shell tool (the gateway runs nothing) and
 * records it in the conversation; it streams as tool events and answers when it has ended.
 */
export const shellOps: Record<string, OpHandler> = {
  bash: async (ctx) => {
    const command = text(ctx.params, 'command');
    const timeout = optInt(ctx.params, 'timeout');
    const sessionId = await ctx.target();
    const r = await (await ctx.session(sessionId)).runCommand({ command, ...(timeout !== undefined ? { timeout_s: timeout } : {}) });
    return {
      output: r.output,
      'exit-code': r.exit_code,
      cancelled: r.cancelled,
      truncated: r.truncated,
      ...(r.full_output_path ? { 'full-output-path': r.full_output_path } : {}),
    };
  },
  abort_bash: async (ctx) => {
    const sessionId = await ctx.target();
    const { stopped } = await (await ctx.session(sessionId)).abortCommand();
    return { accepted: true, aborted: stopped };
  },
};
