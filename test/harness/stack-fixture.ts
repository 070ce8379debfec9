import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStack, type InstanceCounts, type Stack } from '../../infra/stack/stack';

/**
 * A whole local stack (nats-server, Temporal dev server, store, worker, gateway) on free ports in a
 * temporary data dir. Output is kept in memory and printed only when STRAND_TEST_VERBOSE is set or a
 * start fails, so test logs stay readable.
 */
export interface TestStack extends Stack {
  output: string[];
  teardown(): Promise<void>;
}

export interface TestStackOptions {
  /** Several stores, workers or gateways on the one Temporal and NATS (infra/stack/instances.ts). */
  instances?: InstanceCounts;
}

export async function startTestStack(serviceEnv: NodeJS.ProcessEnv = {}, options: TestStackOptions = {}): Promise<TestStack> {
  // Free ports are picked, then released, then bound: another process (a parallel stack, an ephemeral
  // client socket) can take one in between — the Temporal dev server also binds internal ports of its
  // own choosing. Such a start fails with "address already in use"; it is retried on fresh ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startTestStackOnce(serviceEnv, options);
    } catch (err) {
      if (attempt >= 3 || !/address already in use|EADDRINUSE/i.test((err as Error).message)) throw err;
      process.stderr.write(`[stack-fixture] a port was taken while the stack started (attempt ${attempt}); retrying on fresh ports\n`);
    }
  }
}

async function startTestStackOnce(serviceEnv: NodeJS.ProcessEnv, options: TestStackOptions): Promise<TestStack> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-'));
  const output: string[] = [];
  const verbose = !!process.env.STRAND_TEST_VERBOSE;
  const onLine = (name: string, line: string) => {
    const text = `[${name}] ${line}`;
    output.push(text);
    if (output.length > 2_000) output.shift();
    if (verbose) process.stdout.write(`${text}\n`);
  };
  let stack: Stack;
  try {
    stack = await startStack(
      {
        dataDir,
        host: '127.0.0.1',
        ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 },
        ui: false,
        serviceEnv: { STRAND_LOG_LEVEL: 'warn', ...serviceEnv },
        ...(options.instances ? { instances: options.instances } : {}),
      },
      onLine,
    );
  } catch (err) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`${(err as Error).message}\n--- stack output ---\n${output.slice(-80).join('\n')}`);
  }
  return {
    ...stack,
    output,
    async teardown() {
      await stack.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** JSON over HTTP against the gateway, returning status and parsed body. */
export async function http(
  base: string,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: await bodyOf(res), headers: res.headers };
}

/** A reply's body parsed as JSON; its text when it is no JSON (kept so an assertion shows it); undefined when empty. */
async function bodyOf(res: Response): Promise<any> {
  const text = await res.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

/** JSON over HTTP as a principal (`Authorization: Bearer <token>`): status, the body parsed (bodyOf) and the headers. */
export async function httpAs(
  base: string,
  token: string,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await bodyOf(res), headers: res.headers };
}
