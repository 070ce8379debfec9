import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode, StrandError } from '../../../../../contracts/errors';
import { listJobDigests } from '../../../jobs/job-digest';
import { renderHtml } from '../../../sessions/transcript-html';
import { fsProblem } from '../../../transcripts/transcripts';
import { EdnSyntaxError, parseEdn } from '../../codec';
import type { EdnMap } from '../../edn-value';
import { EdnErrorCode, EdnOpError } from '../../protocol';
import { runEql } from '../../eql/engine';
import { EqlError, parseEql } from '../../eql/query';
import { eqlResolvers } from '../../eql/resolvers';
import { messageToEdn } from '../content';
import { toQueryError } from '../errors';
import { modelList } from '../models';
import type { OpContext, OpHandler } from '../op-context';
import { optText } from '../params';
import { commandsFor } from '../../../../../contracts/slash-commands';
import { modelParts } from '../../../../../contracts/models';

/** A read: an unknown session stays `request/not-found`, a failing read is `runtime/query-failed`. */
const read =
  (fn: (ctx: OpContext, sessionId: string) => Promise<EdnMap>): OpHandler =>
  async (ctx) => {
    const sessionId = await ctx.target();
    try {
      return await fn(ctx, sessionId);
    } catch (err) {
      throw toQueryError(err, ctx.log, { op: ctx.req.op, session: sessionId });
    }
  };

/** Where `export_html` writes: the system's temp folder (the gateway may not be on the client's machine). */
const exportsDir = () => path.join(os.tmpdir(), 'strand-exports');

export const readOps: Record<string, OpHandler> = {
  ping: async () => ({ pong: true, 'protocol-version': '1.0' }),

  get_state: read(async (ctx, sessionId) => {
    const facts = ctx.facts(sessionId);
    const [view, settings] = await Promise.all([facts.view(), facts.settings()]);
    const model = modelParts(view.model);
    return {
      state: {
        'session-id': sessionId,
        'session-name': settings?.name ?? null,
        title: view.title,
        status: view.status,
        phase: view.agent_state,
        'is-streaming': view.active_turn !== null,
        'active-turn': view.active_turn,
        model: { provider: model.provider, id: model.model },
        'thinking-level': view.thinking_level,
        'worktree-path': view.project_path,
        'message-count': view.message_count,
        'pending-message-count': view.queue_length,
        'auto-retry-enabled': settings?.auto_retry ?? true,
        'auto-compaction-enabled': settings?.auto_compaction ?? true,
        'created-at': new Date(view.started_at).toISOString(),
        'updated-at': new Date(view.updated_at).toISOString(),
      },
    };
  }),

  /** The active branch as agent messages, oldest first (what the client replays into its transcript). */
  get_messages: read(async (ctx, sessionId) => ({ messages: (await ctx.facts(sessionId).transcript()).map((i) => messageToEdn(i.message, i.entry_id)) })),

  get_session_stats: read(async (ctx, sessionId) => {
    const s = await (await ctx.session(sessionId)).stats();
    return {
      stats: {
        'session-id': sessionId,
        model: s.model,
        tokens: { input: s.usage.input, output: s.usage.output, 'cache-read': s.usage.cache_read, 'cache-write': s.usage.cache_write, total: s.usage.input + s.usage.output + s.usage.cache_read + s.usage.cache_write },
        cost: s.usage.cost_usd,
        messages: { user: s.messages.user, assistant: s.messages.assistant, 'tool-results': s.messages.tool_results, total: s.messages.total },
        steps: s.steps,
        turns: s.turns,
        context: { tokens: s.context.tokens, window: s.context.window, share: s.context.share },
        // The caps `tokens` total and `cost` are checked against (docs/budgets.md); nil for no cap.
        ...(s.budget ? { budget: { 'max-cost-usd': s.budget.max_cost_usd ?? null, 'max-tokens': s.budget.max_tokens ?? null } } : {}),
      },
    };
  }),

  get_fork_messages: read(async (ctx, sessionId) => ({ messages: (await (await ctx.session(sessionId)).forkPoints()).map((p) => ({ 'entry-id': p.entry_id, text: p.text })) })),

  get_last_assistant_text: read(async (ctx, sessionId) => {
    const last = await (await ctx.session(sessionId)).lastAssistantText();
    return { text: last.text, 'entry-id': last.entry_id };
  }),

  get_commands: async () => ({ commands: commandsFor('edn').map((c) => ({ name: c.name, description: c.help, source: 'builtin' })) }),

  get_available_models: async (ctx) => ({ models: await modelList(ctx.sessions) }),

  /** Writes the transcript as one HTML page and answers its path. */
  export_html: read(async (ctx, sessionId) => {
    const facts = ctx.facts(sessionId);
    const [view, transcript] = await Promise.all([facts.view(), facts.transcript()]);
    let html: string;
    try {
      html = renderHtml({ session_id: sessionId, title: view.title, project_path: view.project_path, model: view.model, started_at: view.started_at, messages: transcript });
    } catch (err) {
      throw new StrandError(ErrorCode.TRANSCRIPT_ERROR, `the transcript of session ${sessionId} could not be rendered as html`, { 'session-id': sessionId }, { cause: err });
    }
    const file = path.join(exportsDir(), `${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}-${new Date().toISOString().replace(/[:.]/g, '-')}.html`);
    try {
      await fs.mkdir(exportsDir(), { recursive: true });
      await fs.writeFile(file, html);
    } catch (err) {
      throw new StrandError(ErrorCode.TRANSCRIPT_ERROR, `the transcript of session ${sessionId} could not be written to ${file} (${fsProblem(err)})`, { 'session-id': sessionId, path: file }, { cause: err });
    }
    return { path: file, format: 'html', 'message-count': transcript.length };
  }),

  /**
   * EQL over the session (`:session-id` or the focus): not an EDN vector → request/invalid-query;
   * attributes nobody resolves → request/invalid-query naming them; a resolver failing →
   * runtime/query-failed.
   */
  query_eql: async (ctx) => {
    const text = optText(ctx.params, 'query');
    if (text === undefined || !text.trim()) throw new EdnOpError(EdnErrorCode.invalidParams, 'invalid request parameter :query: a non-empty EDN string');
    let parsed;
    try {
      parsed = parseEql(parseEdn(text));
    } catch (err) {
      if (err instanceof EdnSyntaxError) throw new EdnOpError(EdnErrorCode.invalidQuery, `the query is not EDN: ${err.message}`);
      if (err instanceof EqlError) throw new EdnOpError(EdnErrorCode.invalidQuery, err.message);
      throw err;
    }
    const sessionId = await ctx.target();
    try {
      return { result: await runEql(parsed, eqlResolvers, {
        facts: ctx.facts(sessionId),
        commands: commandsFor('edn').map((c) => ({ name: c.name, description: c.help })),
        jobs: () => listJobDigests(ctx.jobs, ctx.principal, { limit: 50 }),
      }) };
    } catch (err) {
      if (err instanceof EqlError && err.reason === 'unknown') throw new EdnOpError(EdnErrorCode.invalidQuery, err.message, { 'unknown-attributes': err.attributes });
      if (err instanceof EqlError) {
        if (err.cause) ctx.log.warn({ err: err.cause, session: sessionId }, 'an EQL resolver failed');
        throw new EdnOpError(EdnErrorCode.queryFailed, err.message);
      }
      throw toQueryError(err, ctx.log, { op: 'query_eql', session: sessionId });
    }
  },
};
