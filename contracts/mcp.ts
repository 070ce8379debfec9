import { z } from 'zod';

/**
 * MCP (Model Context Protocol) servers a session's model may use (docs/mcp.md): the config shape of
 * `.strand/mcp.json`, `.mcp.json`, the user's `strand/mcp.json` and `POST /api/sessions {mcp_servers}`,
 * the tool names the model sees, and what `GET /api/sessions/{id}/mcp` answers. Pure (no node
 * imports): the gateway, the ACP agent and the activities read it.
 */

const serverCommon = {
  /** A server listed but switched off: shown as `disabled`, never started. */
  disabled: z.boolean().optional(),
  /** Longest a tool call may take before it answers the model with a timeout error (default 120 s). */
  tool_timeout_s: z.number().positive().max(3600).optional(),
};

/** A server the worker starts as a child process and talks to over stdin/stdout. */
export const mcpStdioServerSchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1, 'command must not be empty'),
  args: z.array(z.string()).optional(),
  /** Secret: never logged, returned or stored in the conversation. */
  env: z.record(z.string(), z.string()).optional(),
  /** Relative to the session's project directory (default: the project directory). */
  cwd: z.string().optional(),
  ...serverCommon,
});

/** A server reached over Streamable HTTP. */
const mcpHttpServerSchema = z.object({
  type: z.enum(['http', 'streamable-http']).optional(),
  url: z.url({ protocol: /^https?$/, error: 'url must be an http(s) URL' }),
  /** Secret: never logged, returned or stored in the conversation. */
  headers: z.record(z.string(), z.string()).optional(),
  ...serverCommon,
});

const mcpServerConfigSchema = z.union([mcpStdioServerSchema, mcpHttpServerSchema]);
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

const mcpServerNameSchema = z.string().min(1).max(64);
/** Servers by name, the shape every config source shares. */
export const mcpServersSchema = z.record(mcpServerNameSchema, mcpServerConfigSchema).refine((m) => Object.keys(m).length <= 32, 'at most 32 MCP servers');
export type McpServers = z.infer<typeof mcpServersSchema>;

/**
 * Servers as a client sends them in a request (`POST /api/sessions {mcp_servers}`): an unknown key at
 * any depth is refused, where a config file (another tool's too) may carry keys strand does not read.
 */
export const mcpServersRequestSchema = z
  .record(mcpServerNameSchema, z.union([z.strictObject(mcpStdioServerSchema.shape), z.strictObject(mcpHttpServerSchema.shape)]))
  .refine((m) => Object.keys(m).length <= 32, 'at most 32 MCP servers');

/** A config file: `{"mcpServers": {...}}`; other keys (other tools' settings) are left alone. */
export const mcpConfigFileSchema = z.looseObject({ mcpServers: mcpServersSchema.optional() });

export type McpSource = 'session' | 'project' | 'user';
/** Which source wins for a server name defined in several: the session's, then the project's, then the user's. */
export const MCP_SOURCE_PRECEDENCE: readonly McpSource[] = ['session', 'project', 'user'];

/** Session metadata key holding the session's own servers; the gateway never returns it. */
export const MCP_SERVERS_METADATA_KEY = 'strand.mcp_servers';

export function isStdioServer(c: McpServerConfig): c is z.infer<typeof mcpStdioServerSchema> {
  return 'command' in c;
}

/** The values a config holds that must never leave the worker: env values and header values. */
export function secretValuesOf(c: McpServerConfig): string[] {
  return Object.values((isStdioServer(c) ? c.env : c.headers) ?? {});
}

/** Every secret value in `text` replaced by `***` (values shorter than 4 characters are left: they would mangle words). */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter((v) => v.length >= 4).sort((a, b) => b.length - a.length)) out = out.split(s).join('***');
  return out;
}

/** ACP's `session/new {mcpServers}` items (stdio, and http with `type`): mapped to strand's map by name. */
export const acpMcpServerSchema = z.union([
  z.object({ type: z.literal('http'), name: z.string(), url: z.string(), headers: z.array(z.object({ name: z.string(), value: z.string() })).optional() }),
  z.object({ type: z.literal('sse'), name: z.string(), url: z.string() }),
  z.object({ type: z.literal('stdio').optional(), name: z.string(), command: z.string(), args: z.array(z.string()).optional(), env: z.array(z.object({ name: z.string(), value: z.string() })).optional() }),
]);
export type AcpMcpServer = z.infer<typeof acpMcpServerSchema>;

/** ACP's array as strand's map; `sse` servers are not supported (initialize says `sse: false`) and are left out. */
export function mcpServersFromAcp(list: readonly AcpMcpServer[]): McpServers {
  const out: Record<string, unknown> = {};
  for (const s of list) {
    if (s.type === 'sse') continue;
    if (s.type === 'http') out[s.name] = { url: s.url, ...(s.headers?.length ? { headers: Object.fromEntries(s.headers.map((h) => [h.name, h.value])) } : {}) };
    else out[s.name] = { command: s.command, args: s.args ?? [], ...(s.env?.length ? { env: Object.fromEntries(s.env.map((e) => [e.name, e.value])) } : {}) };
  }
  return mcpServersSchema.parse(out);
}

const MCP_TOOL_PREFIX = 'mcp__';
const MAX_TOOL_NAME = 64;

/** 8 hex digits of FNV-1a: a short, stable suffix that keeps cut or clashing names apart. */
function fnv8(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/**
 * The name the model sees: `mcp__<server>__<tool>`, with every character providers refuse turned
 * into `_` (they accept `[a-zA-Z0-9_-]`, at most 64). A name that had to be cut, or that would clash
 * with one already `taken`, ends in a hash of the original pair instead.
 */
export function mcpToolName(server: string, tool: string, taken: ReadonlySet<string> = new Set()): string {
  const clean = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, '_');
  const name = `${MCP_TOOL_PREFIX}${clean(server)}__${clean(tool)}`;
  if (name.length <= MAX_TOOL_NAME && !taken.has(name)) return name;
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${fnv8(`${server}\u0000${tool}`)}`;
}

export function isMcpToolName(name: string): boolean {
  return name.startsWith(MCP_TOOL_PREFIX);
}

/** One server as `GET /api/sessions/{id}/mcp` shows it: never an env or header value. */
const mcpServerStatusSchema = z.object({
  name: z.string(),
  source: z.enum(['session', 'project', 'user']),
  transport: z.enum(['stdio', 'http']),
  /** `pending`: configured, not started yet (servers start at a session's first turn). */
  state: z.enum(['connected', 'failed', 'disabled', 'pending']),
  error: z.string().optional(),
  tools: z.array(z.object({ name: z.string(), mcp_name: z.string(), description: z.string(), read_only: z.boolean() })),
});
export type McpServerStatus = z.infer<typeof mcpServerStatusSchema>;

export const mcpStatusSchema = z.object({
  servers: z.array(mcpServerStatusSchema),
  /** When a worker last listed the servers (ms); absent before the session's first turn. */
  listed_at: z.number().int().optional(),
  /** Config files that could not be read or did not fit the shape (path and why). */
  problems: z.array(z.string()).optional(),
});
export type McpStatus = z.infer<typeof mcpStatusSchema>;

export const MCP_STATUS_BUCKET = 'strand_mcp_status';
