import { isMcpToolName } from '../../contracts/mcp';
import type { ToolExecutorPort } from '../tool-calls/run-tool';
import type { SessionMcp } from './session-mcp';

/**
 * The tool executor the tool activity calls: `mcp__…` names go to the session's MCP servers, every
 * other name to the built-in tools. The session and turn come with the call (run-tool.ts).
 */
export function withMcpTools(builtin: ToolExecutorPort, mcp: SessionMcp): ToolExecutorPort {
  return {
    async execute(name, params, ctx) {
      if (!isMcpToolName(name) || !ctx.session_id || !ctx.turn_id) return builtin.execute(name, params, ctx);
      if (ctx.signal.aborted) throw ctx.signal.reason;
      return mcp.call({ session_id: ctx.session_id, project_path: ctx.workspace, turn_id: ctx.turn_id, name, params, signal: ctx.signal });
    },
  };
}
