import { EdnErrorCode, EdnOpError } from '../../protocol';
import type { OpContext, OpHandler } from '../op-context';
import { optInt, optNames, optText, text } from '../params';
import { sessionSlot } from '../session-facts';

/**
 * Sessions and focus: new, switch, fork, list, subscribe. Moving the focus sends the rehydration
 * sequence (`session/resumed`, `session/rehydrated`, `session/updated`, `footer/updated`,
 * `context/updated`) and moves the connection's one event feed to the new session.
 */

/** A new session in the focus session's project (the connection's working directory before there is one). */
export async function newSession(ctx: OpContext): Promise<string> {
  const parent = optText(ctx.params, 'parent-session');
  const from = parent ?? (await ctx.focus());
  const project = (await (await ctx.session(from)).describe()).project_path || ctx.peer.cwd;
  const created = await ctx.sessions.create({ project_path: project, ...(ctx.principal ? { owner: ctx.principal } : {}) });
  await ctx.navigate(created.session_id);
  return created.session_id;
}

/** A new session holding the conversation up to `entryId` (the last message when none is named). */
export async function forkSession(ctx: OpContext, sessionId: string, entryId: string | undefined): Promise<string> {
  let entry = entryId;
  if (!entry) {
    const transcript = await ctx.facts(sessionId).transcript();
    entry = transcript[transcript.length - 1]?.entry_id;
    if (!entry) throw new EdnOpError(EdnErrorCode.invalidParams, 'the session has no messages to fork from');
  }
  const forked = await (await ctx.session(sessionId)).fork(entry);
  await ctx.navigate(forked.session_id);
  return forked.session_id;
}

export const navigationOps: Record<string, OpHandler> = {
  new_session: async (ctx) => ({ 'session-id': await newSession(ctx), 'session-file': null }),

  /** `:session-path` is accepted for psi's clients: a strand session's path is its id. */
  switch_session: async (ctx) => {
    const id = optText(ctx.params, 'session-id') ?? optText(ctx.params, 'session-path');
    if (!id?.trim()) throw new EdnOpError(EdnErrorCode.invalidParams, 'switch_session needs :session-id (or :session-path)');
    await ctx.navigate(id.trim());
    return { 'session-id': id.trim(), 'session-file': null };
  },

  fork: async (ctx) => {
    const sessionId = await ctx.target();
    return { 'session-id': await forkSession(ctx, sessionId, text(ctx.params, 'entry-id')), 'session-file': null };
  },

  list_sessions: async (ctx) => {
    const active = await ctx.focus();
    const page = await ctx.sessions.list({ limit: 200 }, ctx.principal);
    return { 'active-session-id': active, sessions: page.sessions.map((s) => sessionSlot(s, active)) };
  },

  /**
   * Adds topics (unknown ones dropped; none at all means everything flows) and sends a snapshot of
   * the focus session. `:session-id` moves the focus; `:since` (a session event sequence, as events
   * carry it in `:session-seq`) rehydrates and replays what came after it.
   */
  subscribe: async (ctx) => {
    const subscribed = ctx.topics.add(optNames(ctx.params, 'topics') ?? []);
    const since = optInt(ctx.params, 'since');
    const named = optText(ctx.params, 'session-id');
    const focus = await ctx.focus();
    const target = named ?? focus;
    if (since !== undefined) await ctx.navigate(target, since);
    else {
      if (target !== focus) await ctx.refocus(target);
      await ctx.snapshots(target, ['session', 'footer', 'context']);
    }
    return { subscribed };
  },

  unsubscribe: async (ctx) => ({ subscribed: ctx.topics.remove(optNames(ctx.params, 'topics')) }),
};
