import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { isStdioServer, redactSecrets, secretValuesOf } from '../../contracts/mcp';
import type { ResolvedMcpServer } from '../../contracts/mcp-files';
import { mcpSdk } from './sdk';

/** A live connection to one server of one session. */
export interface McpConnection {
  client: Client;
  tools: Tool[];
  /** Set once the transport closed (the server died or was closed): the next turn starts it again. */
  closed: boolean;
  lastUsed: number;
}

export interface McpPoolOptions {
  /** Longest a server may take to start and list its tools (default 20 s). */
  connectTimeoutMs?: number;
  /** A connection unused this long is closed (default 10 min); the next turn starts it again. */
  idleMs?: number;
  now?: () => number;
}

type Entry = { state: 'connecting'; promise: Promise<McpConnection> } | { state: 'connected'; conn: McpConnection } | { state: 'failed'; error: string; turn_id: string };

/**
 * The worker's MCP connections, one per (session, server name, config hash): started lazily when a
 * turn first needs the server, reused across turns, closed when idle. A server that failed to start
 * is not tried again within the same turn (each model step would wait for it again), and is tried
 * again on the next turn; one that died is started again when next needed.
 */
export class McpPool {
  private readonly entries = new Map<string, Entry>();
  private readonly connectTimeoutMs: number;
  private readonly idleMs: number;
  private readonly now: () => number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(opts: McpPoolOptions = {}) {
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 20_000;
    this.idleMs = opts.idleMs ?? 10 * 60_000;
    this.now = opts.now ?? Date.now;
    this.sweeper = setInterval(() => void this.closeIdle(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref();
  }

  /** The connection for a server, started if need be; throws (a redacted message) when it cannot be had. */
  async connection(session_id: string, turn_id: string, server: ResolvedMcpServer, projectPath: string): Promise<McpConnection> {
    const key = `${session_id}\u0000${server.name}\u0000${server.hash}`;
    const entry = this.entries.get(key);
    if (entry?.state === 'connected' && !entry.conn.closed) {
      entry.conn.lastUsed = this.now();
      return entry.conn;
    }
    if (entry?.state === 'connecting') return entry.promise;
    if (entry?.state === 'failed' && entry.turn_id === turn_id) throw new Error(entry.error);
    // Callers that join a start in progress get the same (redacted) outcome.
    const promise = this.start(server, projectPath).then(
      (conn) => {
        this.entries.set(key, { state: 'connected', conn });
        return conn;
      },
      (err: unknown) => {
        const error = redactSecrets(err instanceof Error ? err.message : String(err), secretValuesOf(server.config));
        this.entries.set(key, { state: 'failed', error, turn_id });
        throw new Error(error);
      },
    );
    this.entries.set(key, { state: 'connecting', promise });
    return promise;
  }

  /** Forgets a connection that failed mid-call, so the next turn starts the server again. */
  markDead(conn: McpConnection): void {
    conn.closed = true;
    void conn.client.close().catch(() => undefined);
  }

  private async start(server: ResolvedMcpServer, projectPath: string): Promise<McpConnection> {
    const c = server.config;
    const { Client, StdioClientTransport, StreamableHTTPClientTransport } = mcpSdk();
    const transport = isStdioServer(c)
      ? new StdioClientTransport({
          command: c.command,
          args: c.args ?? [],
          ...(c.env ? { env: c.env } : {}),
          cwd: path.resolve(projectPath, c.cwd ?? '.'),
          // The server's stderr may print its secrets: it is neither inherited nor logged.
          stderr: 'ignore',
        })
      : new StreamableHTTPClientTransport(new URL(c.url), c.headers ? { requestInit: { headers: c.headers } } : undefined);
    const client = new Client({ name: 'strand', version: '0.1.0' });
    const conn: McpConnection = { client, tools: [], closed: false, lastUsed: this.now() };
    client.onclose = () => {
      conn.closed = true;
    };
    const timeout = AbortSignal.timeout(this.connectTimeoutMs);
    try {
      await client.connect(transport, { signal: timeout, timeout: this.connectTimeoutMs });
      conn.tools = await listAllTools(client, timeout, this.connectTimeoutMs);
    } catch (err) {
      await client.close().catch(() => undefined);
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(timeout.aborted ? `did not start within ${this.connectTimeoutMs / 1000} s` : why);
    }
    return conn;
  }

  /** Lists a live connection's tools again (a server may change them between turns). */
  async refreshTools(conn: McpConnection): Promise<void> {
    const timeout = AbortSignal.timeout(this.connectTimeoutMs);
    conn.tools = await listAllTools(conn.client, timeout, this.connectTimeoutMs);
  }

  private async closeIdle(): Promise<void> {
    const cutoff = this.now() - this.idleMs;
    for (const [key, entry] of this.entries) {
      if (entry.state === 'connected' && (entry.conn.closed || entry.conn.lastUsed < cutoff)) {
        this.entries.delete(key);
        await entry.conn.client.close().catch(() => undefined);
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.entries.values()];
    this.entries.clear();
    // A server still starting is closed once it has started (or has failed: nothing to close).
    await Promise.all(
      all.map(async (e) => {
        const conn = e.state === 'connected' ? e.conn : e.state === 'connecting' ? await e.promise.catch(() => undefined) : undefined;
        await conn?.client.close().catch(() => undefined);
      }),
    );
  }
}

async function listAllTools(client: Client, signal: AbortSignal, timeout: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout });
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
