import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { isStdioServer, mcpToolName, MCP_SERVERS_METADATA_KEY, secretValuesOf, redactSecrets, type McpServerStatus, type McpStatus } from '../../contracts/mcp';
import { resolveMcpConfig, type ResolvedMcpServer } from '../../contracts/mcp-files';
import type { ProviderTool } from '../providers/types';
import type { StorePort } from '../store/store-port';
import type { ToolOutcome } from '../tool-calls/ledger';
import type { McpConnection, McpPool } from './pool';
import { outcomeOfMcpResult } from './result';
import { mcpSdk } from './sdk';

/** The MCP tools of one model step. */
export interface McpStepTools {
  tools: ProviderTool[];
  /** By the model's tool name: whether the server annotated the tool `readOnlyHint: true`. */
  readOnly: Map<string, boolean>;
  /** One per server that could not be had: its name and the (redacted) error. */
  failures: Array<{ server: string; error: string }>;
}

export interface SessionMcpDeps {
  pool: McpPool;
  store: Pick<StorePort, 'get'>;
  /** Where the servers' state is kept for `GET …/mcp` (status-kv.ts); optional in tests. */
  status?: { put(session_id: string, status: McpStatus): Promise<void> };
  env?: NodeJS.ProcessEnv;
  now?: () => number;
}

interface Listed {
  server: ResolvedMcpServer;
  conn?: McpConnection;
  error?: string;
  /** By the model's tool name. */
  tools: Map<string, Tool>;
}

const DEFAULT_TOOL_TIMEOUT_S = 120;

/**
 * A session's MCP servers as the activities use them: which tools the model is offered at a step
 * (connecting what is configured, degrading what cannot be had), and running one call.
 */
export class SessionMcp {
  constructor(private readonly deps: SessionMcpDeps) {}

  /** The servers' tools for a model step; every failure is reported, none thrown. */
  async stepTools(input: { session_id: string; project_path: string; turn_id: string; step: number }): Promise<McpStepTools> {
    const { listed, problems } = await this.list(input, input.step === 0);
    const out: McpStepTools = { tools: [], readOnly: new Map(), failures: listed.filter((l) => l.error).map((l) => ({ server: l.server.name, error: l.error! })) };
    for (const problem of problems) out.failures.push({ server: 'config', error: problem });
    for (const l of listed) {
      for (const [name, tool] of l.tools) {
        out.tools.push({ name, description: tool.description ?? tool.title ?? tool.name, input_schema: inputSchemaOf(tool) });
        out.readOnly.set(name, tool.annotations?.readOnlyHint === true);
      }
    }
    // Most sessions have no servers: no write per step for them (the gateway lists only configured servers anyway).
    if (listed.length > 0 || problems.length > 0) await this.deps.status?.put(input.session_id, statusOf(listed, problems, (this.deps.now ?? Date.now)())).catch(() => undefined);
    return out;
  }

  /** Runs one `mcp__…` call; a server or tool that cannot be had is an error result, never a throw (abort excepted). */
  async call(input: { session_id: string; project_path: string; turn_id: string; name: string; params: unknown; signal: AbortSignal }): Promise<ToolOutcome> {
    const { listed } = await this.list(input, false);
    const hit = listed.find((l) => l.tools.has(input.name));
    if (!hit?.conn) {
      const down = listed.filter((l) => l.error).map((l) => `${l.server.name}: ${l.error}`);
      return { content: `The tool ${input.name} is not available${down.length ? ` (MCP servers not available: ${down.join('; ')})` : ''}.`, is_error: true, details: { mcp: true, unavailable: true } };
    }
    const tool = hit.tools.get(input.name)!;
    const secrets = secretValuesOf(hit.server.config);
    const timeoutS = hit.server.config.tool_timeout_s ?? DEFAULT_TOOL_TIMEOUT_S;
    const args = input.params && typeof input.params === 'object' && !Array.isArray(input.params) ? (input.params as Record<string, unknown>) : {};
    try {
      const result = await hit.conn.client.callTool({ name: tool.name, arguments: args }, mcpSdk().CallToolResultSchema, { signal: input.signal, timeout: timeoutS * 1000, resetTimeoutOnProgress: true });
      // Servers of the 2024-10 protocol may answer `{toolResult}` instead of content blocks.
      const shaped: CallToolResult = 'content' in result ? (result as CallToolResult) : { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
      return { ...outcomeOfMcpResult(shaped, secrets), details: { mcp: true, server: hit.server.name, tool: tool.name } };
    } catch (err) {
      if (input.signal.aborted) throw input.signal.reason;
      if (hit.conn.closed) this.deps.pool.markDead(hit.conn);
      const why = redactSecrets(err instanceof Error ? err.message : String(err), secrets);
      return { content: `${input.name} failed: ${why}`, is_error: true, details: { mcp: true, server: hit.server.name, tool: tool.name } };
    }
  }

  private async list(input: { session_id: string; project_path: string; turn_id: string }, refresh: boolean): Promise<{ listed: Listed[]; problems: string[] }> {
    const got = await this.deps.store.get({ session_id: input.session_id });
    const session = got?.meta.metadata?.[MCP_SERVERS_METADATA_KEY];
    const config = await resolveMcpConfig({ projectPath: input.project_path, session, ...(this.deps.env ? { env: this.deps.env } : {}) });
    const taken = new Set<string>();
    const listed = await Promise.all(
      config.servers.map(async (server): Promise<Listed> => {
        if (server.config.disabled) return { server, tools: new Map() };
        try {
          const conn = await this.deps.pool.connection(input.session_id, input.turn_id, server, input.project_path);
          if (refresh) await this.deps.pool.refreshTools(conn).catch(() => undefined);
          return { server, conn, tools: new Map() };
        } catch (err) {
          return { server, error: err instanceof Error ? err.message : String(err), tools: new Map() };
        }
      }),
    );
    // Named in config order, so a clash resolves the same way on every worker.
    for (const l of listed) for (const t of l.conn?.tools ?? []) {
      const name = mcpToolName(l.server.name, t.name, taken);
      taken.add(name);
      l.tools.set(name, t);
    }
    return { listed, problems: config.problems };
  }
}

/** The tool's JSON Schema as providers take it: an object schema with properties and required. */
function inputSchemaOf(tool: Tool): Record<string, unknown> {
  const s = { ...(tool.inputSchema as Record<string, unknown>) };
  delete s.$schema;
  return { ...s, type: 'object', properties: s.properties ?? {}, required: s.required ?? [] };
}

function statusOf(listed: Listed[], problems: string[], now: number): McpStatus {
  const servers: McpServerStatus[] = listed.map((l) => ({
    name: l.server.name,
    source: l.server.source,
    transport: isStdioServer(l.server.config) ? 'stdio' : 'http',
    state: l.server.config.disabled ? 'disabled' : l.conn ? 'connected' : 'failed',
    ...(l.error ? { error: l.error } : {}),
    tools: [...l.tools].map(([mcp_name, t]) => ({ name: t.name, mcp_name, description: t.description ?? '', read_only: t.annotations?.readOnlyHint === true })),
  }));
  return { servers, listed_at: now, ...(problems.length ? { problems } : {}) };
}
