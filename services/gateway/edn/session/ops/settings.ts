import { thinkingLevelSchema } from '../../../../../contracts/session-settings';
import { EdnErrorCode, EdnOpError } from '../../protocol';
import { availableModels, modelRef } from '../models';
import type { OpContext, OpHandler } from '../op-context';
import { bool, optText, text } from '../params';
import { modelParts } from '../../../../../contracts/models';

/**
 * Settings ops: each is one SessionRef.updateSettings (model checked against the catalog and the
 * configured providers, thinking level clamped to the model). The session publishes its new state,
 * which reaches the client as `session/updated` and `footer/updated`.
 */
const split = (ref: string) => {
  const { provider, model } = modelParts(ref);
  return { provider, id: model };
};

/** A catalog note about the chosen model (no price, default limits) reaches the client as a notification. */
function notify(ctx: OpContext, sessionId: string, notice: string | undefined): void {
  if (notice) ctx.emit('ui/notification', { 'session-id': sessionId, id: `model:${ctx.req.id}`, message: notice, level: 'warning' });
}

export async function setModel(ctx: OpContext, sessionId: string, ref: string) {
  const settings = await (await ctx.session(sessionId)).updateSettings({ model: ref });
  notify(ctx, sessionId, settings.notice);
  return settings;
}

export async function setThinkingLevel(ctx: OpContext, sessionId: string, level: string) {
  const parsed = thinkingLevelSchema.safeParse(level);
  if (!parsed.success) throw new EdnOpError(EdnErrorCode.invalidParams, `invalid thinking level "${level}": one of ${thinkingLevelSchema.options.join(', ')}`);
  return (await ctx.session(sessionId)).updateSettings({ thinking_level: parsed.data });
}

export const settingsOps: Record<string, OpHandler> = {
  set_model: async (ctx) => {
    const sessionId = await ctx.target();
    const settings = await setModel(ctx, sessionId, modelRef(optText(ctx.params, 'provider'), text(ctx.params, 'model-id')));
    return { model: split(settings.model), 'thinking-level': settings.thinking_level };
  },

  /** The next (or previous) model among those the session may use. */
  cycle_model: async (ctx) => {
    const sessionId = await ctx.target();
    const direction = optText(ctx.params, 'direction') ?? 'next';
    if (direction !== 'next' && direction !== 'prev') throw new EdnOpError(EdnErrorCode.invalidParams, 'cycle_model :direction must be "next" or "prev"');
    const models = (await availableModels(ctx.sessions)).map((m) => m.ref);
    if (models.length === 0) throw new EdnOpError(EdnErrorCode.unknownModel, 'no model to switch to');
    const current = (await (await ctx.session(sessionId)).describe()).model;
    const at = models.indexOf(current);
    const next = direction === 'next' ? models[(at + 1) % models.length]! : models[at <= 0 ? models.length - 1 : at - 1]!;
    const settings = await setModel(ctx, sessionId, next);
    return { model: split(settings.model), 'thinking-level': settings.thinking_level };
  },

  set_thinking_level: async (ctx) => {
    const sessionId = await ctx.target();
    const settings = await setThinkingLevel(ctx, sessionId, text(ctx.params, 'level'));
    return { 'thinking-level': settings.thinking_level };
  },

  cycle_thinking_level: async (ctx) => {
    const sessionId = await ctx.target();
    const settings = await (await ctx.session(sessionId)).updateSettings({ cycle_thinking: true });
    return { 'thinking-level': settings.thinking_level };
  },

  set_session_name: async (ctx) => {
    const sessionId = await ctx.target();
    const name = text(ctx.params, 'name').trim();
    const settings = await (await ctx.session(sessionId)).updateSettings({ name });
    return { 'session-name': settings.name ?? name };
  },

  set_auto_compaction: async (ctx) => {
    const sessionId = await ctx.target();
    const settings = await (await ctx.session(sessionId)).updateSettings({ auto_compaction: bool(ctx.params, 'enabled') });
    return { enabled: settings.auto_compaction };
  },

  set_auto_retry: async (ctx) => {
    const sessionId = await ctx.target();
    const settings = await (await ctx.session(sessionId)).updateSettings({ auto_retry: bool(ctx.params, 'enabled') });
    return { enabled: settings.auto_retry };
  },
};
