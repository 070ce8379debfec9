import * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';
import { acpMcpServerSchema, mcpServersFromAcp, type McpServers } from '../../../contracts/mcp';

/**
 * session/new's `mcpServers` (an array, ACP's shape) as the session's own servers (strand's map by
 * name). A list that does not fit (a bad URL, a duplicate-free map of more than 32) is -32602; SSE
 * servers are left out (initialize offers `sse: false`).
 */
export function mcpServersOf(list: unknown): McpServers {
  const parsed = z.array(acpMcpServerSchema).safeParse(list ?? []);
  if (!parsed.success) throw acp.RequestError.invalidParams({ mcpServers: parsed.error.issues.map((i) => i.message) }, 'mcpServers do not fit the ACP schema');
  try {
    return mcpServersFromAcp(parsed.data);
  } catch (err) {
    const issues = err instanceof z.ZodError ? err.issues.map((i) => `${i.path.join('.')}: ${i.message}`) : [String(err)];
    throw acp.RequestError.invalidParams({ mcpServers: issues }, 'mcpServers cannot be used');
  }
}
