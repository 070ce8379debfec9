import { thinkingLevelSchema } from '../../../../../contracts/session-settings';
import { isEdnMap, isKeyword, kw, type EdnMap, type EdnValue } from '../../edn-value';
import { iso } from '../content';
import { availableModels, modelRef } from '../models';
import type { OpContext } from '../op-context';

/**
 * Pickers the client shows for `/model`, `/thinking`, `/resume` and `/tree` without an argument:
 * `ui/frontend-action-requested` with psi's `:ui/action` (a select with `:ui/items` of
 * `{:ui.item/id :ui.item/label :ui.item/value}`); the choice comes back as `frontend_action_result`
 * with the item's value.
 */
export const PICKERS = {
  model: 'select-model',
  thinking: 'select-thinking-level',
  resume: 'select-resume-session',
  tree: 'select-session',
} as const;

interface Item {
  id: EdnValue;
  label: string;
  value: EdnValue;
}

function selectAction(name: string, prompt: string, items: Item[], order: 'default' | 'preserve'): EdnMap {
  return {
    'ui/action-id': kw(name),
    'ui/action-kind': kw('select'),
    'ui/action-name': kw(name),
    'ui/prompt': prompt,
    'ui/order': kw(order),
    'ui/items': items.map((i) => ({ 'ui.item/id': i.id, 'ui.item/label': i.label, 'ui.item/value': i.value })),
    'ui/on-submit': { 'submit/kind': kw(name) },
  };
}

async function itemsFor(ctx: OpContext, name: string, sessionId: string): Promise<{ prompt: string; items: Item[]; order: 'default' | 'preserve' }> {
  if (name === PICKERS.model) {
    const items = (await availableModels(ctx.sessions)).map((m) => ({ id: [m.provider, m.id], label: `${m.provider} ${m.id}${m.reasoning ? ' [reasoning]' : ''}`, value: { provider: m.provider, id: m.id } }));
    return { prompt: 'Select a model', items, order: 'default' };
  }
  if (name === PICKERS.thinking) {
    const model = (await ctx.facts(sessionId).view()).model;
    // The levels this model accepts (a level it does not would be clamped anyway).
    const levels = thinkingLevelSchema.options.filter((l) => ctx.sessions.models.clamp(model, l) === l);
    return { prompt: 'Select a thinking level', items: levels.map((l) => ({ id: l, label: l, value: l })), order: 'default' };
  }
  if (name === PICKERS.resume) {
    const page = await ctx.sessions.list({ limit: 200 }, ctx.principal);
    const sessions = [...page.sessions].sort((a, b) => b.updated_at - a.updated_at);
    const items = sessions.map((s) => ({ id: s.session_id, label: `${s.title} — ${s.project_path} (${s.message_count} messages, ${iso(s.updated_at).slice(0, 16).replace('T', ' ')})`, value: s.session_id }));
    return { prompt: 'Select a session to resume', items, order: 'default' };
  }
  // /tree: this project's sessions, then the fork points of the current one.
  const facts = ctx.facts(sessionId);
  const view = await facts.view();
  const [page, forks] = await Promise.all([ctx.sessions.list({ limit: 100, project: view.project_path }, ctx.principal), (await ctx.session(sessionId)).forkPoints()]);
  const sessions: Item[] = page.sessions.map((s) => ({
    id: s.session_id,
    label: `${s.session_id === sessionId ? '● ' : '  '}${s.title} (${s.message_count} messages)${s.active_turn ? ' [stream]' : ''}${s.session_id === sessionId ? ' [active]' : ''}`,
    value: { 'action/kind': kw('switch-session'), 'action/session-id': s.session_id },
  }));
  const points: Item[] = forks.map((p) => ({ id: p.entry_id, label: `  ⑂ fork at: ${p.text.replace(/\s+/g, ' ').slice(0, 80)}`, value: { 'action/kind': kw('fork-session'), 'action/entry-id': p.entry_id } }));
  return { prompt: 'Select a session or a fork point', items: [...sessions, ...points], order: 'preserve' };
}

/** Shows a picker; its answer is expected as `frontend_action_result` with this request's id. */
export async function requestPicker(ctx: OpContext, name: string, sessionId: string): Promise<void> {
  const { prompt, items, order } = await itemsFor(ctx, name, sessionId);
  ctx.actions.set(ctx.req.id, { action: name, sessionId });
  ctx.emit('ui/frontend-action-requested', { 'session-id': sessionId, 'request-id': ctx.req.id, prompt, 'ui/action': selectAction(name, prompt, items, order) });
}

/** A picked model: `{:provider :id}` (keywords or strings), or a `provider/id` string. */
export function pickedModel(value: EdnValue | undefined): string | undefined {
  const name = (v: EdnValue | undefined) => (typeof v === 'string' ? v : isKeyword(v) ? v.name : undefined);
  if (isEdnMap(value)) {
    const id = name(value.id);
    return id ? modelRef(name(value.provider), id) : undefined;
  }
  return name(value);
}

/** A picked `/tree` item: a session to switch to or an entry to fork at (a bare string is a session id). */
export function pickedTreeItem(value: EdnValue | undefined): { switchTo: string } | { forkAt: string } | undefined {
  if (typeof value === 'string' && value.trim()) return { switchTo: value.trim() };
  if (!isEdnMap(value)) return undefined;
  const kind = value['action/kind'];
  const kindName = isKeyword(kind) ? kind.name : typeof kind === 'string' ? kind : '';
  const session = value['action/session-id'];
  const entry = value['action/entry-id'];
  if (kindName.replace('_', '-') === 'switch-session' && typeof session === 'string') return { switchTo: session };
  if (['fork-session', 'fork-point'].includes(kindName.replace('_', '-')) && typeof entry === 'string') return { forkAt: entry };
  return undefined;
}
