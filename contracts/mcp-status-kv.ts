import { createHash } from 'node:crypto';
import type { NatsConnection } from 'nats';
import { natsReplicas } from './nats-replicas';
import { MCP_STATUS_BUCKET, mcpStatusSchema, type McpStatus } from './mcp';

/** KV keys allow few characters; a digest of the session id is safe. */
function mcpStatusKey(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

/**
 * The servers' state as the worker last listed them, for `GET /api/sessions/{id}/mcp` (the
 * connections live in the worker; the gateway reads this). Holds names, states, redacted errors and
 * tool lists: never an env or header value. Kept a day after its last write.
 */
export async function createMcpStatusKv(nc: NatsConnection) {
  const kv = await nc.jetstream().views.kv(MCP_STATUS_BUCKET, { ttl: 24 * 60 * 60 * 1000, history: 1, replicas: natsReplicas() });
  return {
    async put(sessionId: string, status: McpStatus): Promise<void> {
      await kv.put(mcpStatusKey(sessionId), JSON.stringify(status));
    },
    async get(sessionId: string): Promise<McpStatus | undefined> {
      const entry = await kv.get(mcpStatusKey(sessionId));
      if (!entry || entry.operation !== 'PUT' || entry.length === 0) return undefined;
      const parsed = mcpStatusSchema.safeParse(entry.json());
      return parsed.success ? parsed.data : undefined;
    },
  };
}
