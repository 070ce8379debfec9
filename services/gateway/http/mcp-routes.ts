import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { NatsConnection } from 'nats';
import { isStdioServer, mcpStatusSchema, MCP_SERVERS_METADATA_KEY, type McpStatus } from '../../../contracts/mcp';
import { resolveMcpConfig } from '../../../contracts/mcp-files';
import { createMcpStatusKv } from '../../../contracts/mcp-status-kv';
import { readSessionRecord } from '../../../contracts/session-record';
import type { SessionService } from '../sessions/session-service';
import { principalOf } from './auth-middleware';
import { errors, jsonReply, openApiApp, SESSION_READ, sessionIdParams as params } from './openapi/route-kit';

const listMcp = createRoute({
  method: 'get',
  path: '/{id}/mcp',
  operationId: 'listMcpServers',
  summary: "The session's MCP servers, their state and tools",
  description:
    'strand extension (docs/mcp.md): every server the session uses (its own, the project\'s `.strand/mcp.json` or `.mcp.json`, the user\'s `strand/mcp.json`; the session\'s first by name), with its source, transport, state (`connected`, `failed` with the error, `disabled`, or `pending` before the worker first started it) and the tools the model sees (`mcp_name`). Never an `env` or `headers` value.',
  tags: ['sessions'],
  request: { params },
  responses: { 200: jsonReply(mcpStatusSchema, 'The servers.') },
  ...errors(...SESSION_READ),
});

/**
 * `GET /api/sessions/{id}/mcp`: the configured servers (read here, as the worker reads them), each
 * with the state the worker last recorded for it (contracts/mcp-status-kv.ts) when that was for the
 * same config, else `pending`.
 */
export function mcpRoutes(deps: { sessions: SessionService; nc: NatsConnection }): OpenAPIHono {
  const app = openApiApp();
  let kv: ReturnType<typeof createMcpStatusKv> | undefined;
  const statusKv = () => (kv ??= createMcpStatusKv(deps.nc));

  app.openapi(listMcp, async (c) => {
    const id = c.req.valid('param').id;
    const { meta } = await deps.sessions.open(id, principalOf(c));
    const { project_path } = readSessionRecord(meta.metadata);
    const [config, recorded] = await Promise.all([
      resolveMcpConfig({ projectPath: project_path, session: meta.metadata?.[MCP_SERVERS_METADATA_KEY] }),
      statusKv().then((s) => s.get(id)).catch(() => undefined),
    ]);
    const servers: McpStatus['servers'] = config.servers.map((s) => {
      const seen = recorded?.servers.find((r) => r.name === s.name && r.source === s.source);
      const transport = isStdioServer(s.config) ? 'stdio' : 'http';
      if (s.config.disabled) return { name: s.name, source: s.source, transport, state: 'disabled', tools: [] };
      if (seen && seen.transport === transport) return seen;
      return { name: s.name, source: s.source, transport, state: 'pending', tools: [] };
    });
    const problems = [...new Set([...config.problems, ...(recorded?.problems ?? [])])];
    const body: McpStatus = { servers, ...(recorded?.listed_at !== undefined ? { listed_at: recorded.listed_at } : {}), ...(problems.length ? { problems } : {}) };
    return c.json(body, 200);
  });

  return app;
}
