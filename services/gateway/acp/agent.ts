import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import type { Logger } from '../../common/logger';
import type { JobService } from '../jobs/job-service';
import type { SessionService } from '../sessions/session-service';
import { toRequestError } from './errors';
import { mcpServersOf } from './mcp-servers';
import type { AcpClientLink } from './live-session';
import type { AcpLiveSession } from './live-session';
import { openSession, sessionConfigOptions } from './open-session';
import { promptContent } from './prompt-text';
import { isModeId, MODEL_OPTION, MODES, policyOf, THINKING_OPTION } from './settings';
import { thinkingLevelSchema } from '../../../contracts/session-settings';
import {
  acpAuthenticateParams,
  acpCancelParams,
  acpInitializeParams,
  acpLoadSessionParams,
  acpNewSessionParams,
  acpPromptParams,
  acpSetConfigOptionParams,
  acpSetModeParams,
} from '../../../contracts/acp-requests';
import { strictNotificationParams, strictParams } from './strict-params';

/** The one authentication method: the token in the agent's environment (tokens configured only). */
const TOKEN_AUTH_METHOD = 'strand-token';

export interface AcpAgentDeps {
  /** The session service and the jobs once the stack answers; rejects with a message naming what is down. */
  stack(): Promise<{ sessions: SessionService; jobs: JobService }>;
  log: Logger;
  /** Where a relative `cwd` is resolved (ACP asks clients for absolute ones). */
  baseDir: string;
  /** Tokens configured: every session request needs `principal` (from STRAND_TOKEN); sessions are its. */
  auth: { enabled: boolean; principal: string | undefined };
  version: string;
}

/**
 * strand as an ACP agent: one connection (a `strand acp` process per editor), its sessions served
 * by AcpLiveSession over the protocol-neutral SessionService. The SDK answers what is not ACP on its
 * own (-32700 for a line that is not JSON, -32600 for what is not a request or comes before
 * `initialize`, -32601 for an unknown method). Params are parsed with strand's strict schemas
 * (contracts/acp-requests.ts, through `strictParams`) rather than the SDK's, which drop unknown keys:
 * a key the spec does not define, at any depth, is -32602 naming its path.
 */
export function createAcpAgent(deps: AcpAgentDeps): { app: acp.AgentApp; close(): void } {
  const { log, auth } = deps;
  const live = new Map<string, AcpLiveSession>();
  let notices = false;

  const link = (client: acp.AgentContext): AcpClientLink => ({
    update: (sessionId, update) => client.notify(acp.methods.client.session.update, { sessionId, update }),
    askPermission: (request, signal) => client.request(acp.methods.client.session.requestPermission, request, { cancellationSignal: signal, stopWaitingOnCancel: true }),
    notices,
  });

  /** Runs a session request: authenticated, the stack reachable, failures as the protocol's errors. */
  const serve = async <T>(method: string, about: Record<string, unknown>, fn: (sessions: SessionService, jobs: JobService) => Promise<T>): Promise<T> => {
    if (auth.enabled && auth.principal === undefined) throw acp.RequestError.authRequired({ authMethods: [TOKEN_AUTH_METHOD] }, 'set STRAND_TOKEN to a token of this strand stack in the agent\'s environment');
    try {
      const { sessions, jobs } = await deps.stack();
      return await fn(sessions, jobs);
    } catch (err) {
      throw toRequestError(err, log, { method, ...about });
    }
  };

  const liveOf = (sessionId: string): AcpLiveSession => {
    const got = live.get(sessionId);
    if (!got) throw acp.RequestError.sessionNotFound(sessionId);
    return got;
  };

  const app = acp
    .agent({ name: 'strand' })
    .onRequest(acp.methods.agent.initialize, strictParams(acpInitializeParams), ({ params }) => {
      notices = params.clientCapabilities?.session?.notices != null;
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          // Advertised whatever the model: a session's model can change after initialize (the
          // capability is per connection), so an image for a model that takes none is refused by
          // session/prompt with -32602 naming the model (docs/acp.md).
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          // stdio and Streamable HTTP servers from session/new run in the worker (docs/mcp.md); SSE is not supported.
          mcpCapabilities: { http: true, sse: false },
        },
        authMethods: auth.enabled
          ? [{ id: TOKEN_AUTH_METHOD, name: 'STRAND_TOKEN', description: 'strand reads its access token from the STRAND_TOKEN environment variable of the agent process; sessions belong to that token\'s principal' }]
          : [],
        agentInfo: { name: 'strand', title: 'strand', version: deps.version },
      };
    })
    // Never runs: the strict handler above, registered first, answers every `initialize`. The SDK
    // turns on its gate (-32600 for any request before `initialize`) only for its own handler form.
    .onRequest(acp.methods.agent.initialize, () => {
      throw acp.RequestError.internalError({}, 'initialize reached the SDK\'s handler form');
    })
    .onRequest(acp.methods.agent.authenticate, strictParams(acpAuthenticateParams), ({ params }) => {
      if (params.methodId !== TOKEN_AUTH_METHOD) throw acp.RequestError.invalidParams({ methodId: params.methodId }, `unknown authentication method (strand offers ${TOKEN_AUTH_METHOD})`);
      if (auth.enabled && auth.principal === undefined) throw acp.RequestError.authRequired({}, 'STRAND_TOKEN is not set to a token of this strand stack');
      return {};
    })
    .onRequest(acp.methods.agent.session.new, strictParams(acpNewSessionParams), ({ params, client }) =>
      serve('session/new', {}, async (sessions, jobs) => {
        const project = path.resolve(deps.baseDir, params.cwd);
        const mcp_servers = mcpServersOf(params.mcpServers);
        const created = await sessions.create({ project_path: project, mcp_servers, ...(auth.principal !== undefined && auth.enabled ? { owner: auth.principal } : {}) });
        const session = await sessions.open(created.session_id, principalOf(auth));
        const opened = await openSession({ sessions, jobs, principal: principalOf(auth), log, client: link(client) }, session, false);
        live.set(created.session_id, opened.live);
        opened.afterAnswer();
        return { sessionId: created.session_id, ...opened.settings };
      }),
    )
    .onRequest(acp.methods.agent.session.load, strictParams(acpLoadSessionParams), ({ params, client }) =>
      serve('session/load', { session: params.sessionId }, async (sessions, jobs) => {
        const session = await sessions.open(params.sessionId, principalOf(auth));
        live.get(params.sessionId)?.stop();
        live.delete(params.sessionId);
        const opened = await openSession({ sessions, jobs, principal: principalOf(auth), log, client: link(client) }, session, true);
        live.set(params.sessionId, opened.live);
        opened.afterAnswer();
        return { ...opened.settings };
      }),
    )
    .onRequest(acp.methods.agent.session.prompt, strictParams(acpPromptParams), ({ params }) => serve('session/prompt', { session: params.sessionId }, async () => {
      const { text, images } = promptContent(params.prompt);
      return liveOf(params.sessionId).prompt(text, images);
    }))
    .onNotification(acp.methods.agent.session.cancel, strictNotificationParams(acpCancelParams, 'session/cancel', log), ({ params }) => {
      if (params) live.get(params.sessionId)?.cancel();
    })
    .onRequest(acp.methods.agent.session.setMode, strictParams(acpSetModeParams), ({ params }) =>
      serve('session/set_mode', { session: params.sessionId }, async (sessions) => {
        liveOf(params.sessionId);
        if (!isModeId(params.modeId)) throw acp.RequestError.invalidParams({ modeId: params.modeId }, `unknown mode: one of ${MODES.map((m) => m.id).join(', ')}`);
        await (await sessions.open(params.sessionId, principalOf(auth))).updateSettings({ approval: policyOf(params.modeId) });
        return {};
      }),
    )
    .onRequest(acp.methods.agent.session.setConfigOption, strictParams(acpSetConfigOptionParams), ({ params }) =>
      serve('session/set_config_option', { session: params.sessionId }, async (sessions) => {
        const session = liveOf(params.sessionId);
        const value = 'type' in params && params.type === 'boolean' ? undefined : (params.value as string);
        if (typeof value !== 'string') throw acp.RequestError.invalidParams({ configId: params.configId }, 'this option takes one of its values');
        let change: { model: string } | { thinking_level: (typeof thinkingLevelSchema.options)[number] };
        if (params.configId === MODEL_OPTION) change = { model: value };
        else if (params.configId === THINKING_OPTION) {
          const level = thinkingLevelSchema.safeParse(value);
          if (!level.success) throw acp.RequestError.invalidParams({ value }, `not a thinking level: ${thinkingLevelSchema.options.join(', ')}`);
          change = { thinking_level: level.data };
        } else throw acp.RequestError.invalidParams({ configId: params.configId }, `unknown option: ${MODEL_OPTION} or ${THINKING_OPTION}`);
        const settings = await (await sessions.open(params.sessionId, principalOf(auth))).updateSettings(change);
        session.settingsShown(settings.model, settings.thinking_level);
        return { configOptions: await sessionConfigOptions(sessions, settings.model, settings.thinking_level) };
      }),
    );

  return {
    app,
    close: () => {
      for (const session of live.values()) session.stop();
      live.clear();
    },
  };
}

/** The principal sessions belong to: the token's with auth on, none (everyone's `local`) with it off. */
function principalOf(auth: AcpAgentDeps['auth']): string | undefined {
  return auth.enabled ? auth.principal : undefined;
}
