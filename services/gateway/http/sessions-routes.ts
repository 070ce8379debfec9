import { Hono } from 'hono';
import { basename } from 'node:path';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import {
  SESSION_METADATA_KEYS as KEYS,
  createSessionBodySchema,
  listSessionsQuerySchema,
  messagesQuerySchema,
  promptBodySchema,
} from '../../../contracts/http-api';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import type { SessionCommands } from '../temporal/session-commands';
import { parseJsonBody, toStrandError } from './errors';

export interface SessionsDeps {
  store: StoreClient;
  commands: SessionCommands;
  defaultModel: string;
}

function str(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v : fallback;
}

/** `/api/sessions…`: create, list, describe, prompt, messages. */
export function sessionsRoutes(deps: SessionsDeps): Hono {
  const app = new Hono();

  async function requireSession(id: string): Promise<SessionMeta> {
    const got = await deps.store.get({ session_id: id });
    if (!got) throw new StrandError(ErrorCode.SESSION_NOT_FOUND, `no session ${id}`);
    return got.meta;
  }

  function describe(meta: SessionMeta, agentState: string) {
    const md = meta.metadata ?? {};
    return {
      session_id: meta.session_id,
      status: 'active',
      agent_state: agentState,
      project_path: str(md[KEYS.projectPath], ''),
      model: str(md[KEYS.model], deps.defaultModel),
      thinking_level: 'off',
      message_count: meta.message_count,
      started_at: meta.created_at,
      title: meta.title,
    };
  }

  app.post('/', async (c) => {
    const body = await parseJsonBody(c, createSessionBodySchema);
    const model = body.model ?? deps.defaultModel;
    const { session_id, meta } = await deps.store.create({
      title: body.title ?? basename(body.project_path),
      metadata: {
        [KEYS.projectPath]: body.project_path,
        [KEYS.model]: model,
        ...(body.config ? { [KEYS.config]: body.config } : {}),
      },
    });
    return c.json({ session_id, status: 'active', created_at: meta.created_at }, 201);
  });

  app.get('/', async (c) => {
    const q = listSessionsQuerySchema.safeParse(c.req.query());
    if (!q.success) throw toStrandError(q.error);
    const page = await deps.store.list({ ...q.data });
    return c.json({
      sessions: page.sessions.map((m) => describe(m, 'idle')),
      ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}),
    });
  });

  app.get('/:id', async (c) => {
    const meta = await requireSession(c.req.param('id'));
    const state = await deps.commands.state(meta.session_id).catch(() => undefined);
    return c.json(describe(meta, state?.phase ?? 'idle'));
  });

  app.post('/:id/prompt', async (c) => {
    const body = await parseJsonBody(c, promptBodySchema);
    const meta = await requireSession(c.req.param('id'));
    const md = meta.metadata ?? {};
    try {
      const accepted = await deps.commands.prompt(
        { session_id: meta.session_id, project_path: str(md[KEYS.projectPath], ''), model: str(md[KEYS.model], deps.defaultModel) },
        { text: body.text, ...(body.request_id ? { request_id: body.request_id } : {}) },
      );
      return c.json({ status: 'accepted', agent_state: accepted.agent_state, turn_id: accepted.turn_id }, 202);
    } catch (err) {
      if (err instanceof StrandError && err.code === ErrorCode.SESSION_BUSY && c.req.query('queue') === '1') {
        throw new StrandError(ErrorCode.SESSION_BUSY, `${err.message}; queueing follow-ups (?queue=1) is not available yet`);
      }
      throw err;
    }
  });

  app.get('/:id/messages', async (c) => {
    const q = messagesQuerySchema.safeParse(c.req.query());
    if (!q.success) throw toStrandError(q.error);
    const page = await deps.store.messages({ session_id: c.req.param('id'), ...q.data });
    if (!page) throw new StrandError(ErrorCode.SESSION_NOT_FOUND, `no session ${c.req.param('id')}`);
    return c.json(page);
  });

  return app;
}
