import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { StoreClient } from '../../contracts/session-store/client';
import { createGatewayAuth } from '../../services/gateway/auth/tokens';
import { gatewayConfig } from '../../services/gateway/config';
import type { AgentEventReader } from '../../services/gateway/events/agent-event-reader';
import { createHttpApp, type HttpDeps } from '../../services/gateway/http/app';
import { SessionService } from '../../services/gateway/sessions/session-service';
import type { SessionCommands } from '../../services/gateway/temporal/session-commands';

/**
 * The gateway's real HTTP app on a free port, its SessionService built from `env` as the gateway
 * builds it (services/gateway/config.ts), for tests of what reads only the configuration: `GET
 * /api/models` and its clients. The store and Temporal are absent (a route that needs them fails).
 */
export async function startModelsGateway(env: NodeJS.ProcessEnv): Promise<{ url: string; close(): Promise<void> }> {
  const config = gatewayConfig(env);
  const absent = {} as StoreClient & SessionCommands & AgentEventReader;
  const sessions = new SessionService({ store: absent, commands: absent, reader: absent, defaultModel: config.defaultModel, catalog: config.catalog, configuredProviders: config.configuredProviders, modelServers: config.modelServers });
  const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };
  const deps = { sessions, maxBodyBytes: 1024, auth: createGatewayAuth(new Map()), rateLimit: { perSecond: 1000, burst: 1000 }, keepaliveMs: 15_000, log: quiet } as unknown as HttpDeps;
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: createHttpApp(deps).fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
