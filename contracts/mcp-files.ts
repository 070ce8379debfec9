import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mcpConfigFileSchema, mcpServersSchema, MCP_SOURCE_PRECEDENCE, type McpServerConfig, type McpServers, type McpSource } from './mcp';

/**
 * Where a session's MCP servers come from (docs/mcp.md), read by the worker at each turn and by the
 * gateway for `GET …/mcp`. Node-only (files), so kept apart from contracts/mcp.ts.
 */

export interface ResolvedMcpServer {
  name: string;
  source: McpSource;
  config: McpServerConfig;
  /** Identifies the config (secrets included, never shown): a changed config is a new connection. */
  hash: string;
}

export interface ResolvedMcpConfig {
  servers: ResolvedMcpServer[];
  /** Files that could not be read or parsed, said without their content. */
  problems: string[];
}

/** The project's file: `.strand/mcp.json`, else `.mcp.json` (the widely used name). */
function projectMcpFiles(projectPath: string): string[] {
  return [path.join(projectPath, '.strand', 'mcp.json'), path.join(projectPath, '.mcp.json')];
}

/** The user's file: `$XDG_CONFIG_HOME/strand/mcp.json`, else `~/.config/strand/mcp.json`. */
export function userMcpFile(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.trim() || path.join(env.HOME?.trim() || os.homedir(), '.config');
  return path.join(base, 'strand', 'mcp.json');
}

function configHash(c: McpServerConfig): string {
  return createHash('sha256').update(canonical(c)).digest('hex').slice(0, 16);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

/** One file's servers; a missing file is none, a broken one is a problem (named by path, never quoted). */
async function readFileServers(file: string, problems: string[]): Promise<McpServers | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(`${file}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    problems.push(`${file}: not valid JSON`);
    return undefined;
  }
  const parsed = mcpConfigFileSchema.safeParse(json);
  if (!parsed.success) {
    problems.push(`${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`).join('; ')}`);
    return undefined;
  }
  return parsed.data.mcpServers ?? {};
}

/**
 * The servers a session uses: its own (`mcp_servers` / ACP `mcpServers`), the project's and the
 * user's, merged by name with the session's first, then the project's, then the user's
 * (MCP_SOURCE_PRECEDENCE). A project with both `.strand/mcp.json` and `.mcp.json` uses the first.
 */
export async function resolveMcpConfig(input: { projectPath: string; session?: unknown; env?: NodeJS.ProcessEnv }): Promise<ResolvedMcpConfig> {
  const problems: string[] = [];
  const bySource: Record<McpSource, McpServers | undefined> = { session: undefined, project: undefined, user: undefined };
  if (input.session !== undefined) {
    const parsed = mcpServersSchema.safeParse(input.session);
    if (parsed.success) bySource.session = parsed.data;
    else problems.push('the session\'s mcp_servers do not fit the shape');
  }
  for (const file of projectMcpFiles(input.projectPath)) {
    const exists = await fs.stat(file).then(() => true, () => false);
    if (!exists) continue;
    bySource.project = await readFileServers(file, problems);
    break;
  }
  bySource.user = await readFileServers(userMcpFile(input.env), problems);
  const servers: ResolvedMcpServer[] = [];
  const seen = new Set<string>();
  for (const source of MCP_SOURCE_PRECEDENCE) {
    for (const [name, config] of Object.entries(bySource[source] ?? {})) {
      if (seen.has(name)) continue;
      seen.add(name);
      servers.push({ name, source, config, hash: configHash(config) });
    }
  }
  return { servers, problems };
}
