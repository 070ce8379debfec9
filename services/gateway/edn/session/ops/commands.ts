import { revertRefusal, type RevertRequest } from '../../../../../contracts/checkpoints';
import { StrandError } from '../../../../../contracts/errors';
import { isKeyword, type EdnValue } from '../../edn-value';
import { EdnErrorCode, EdnOpError } from '../../protocol';
import { textOfBlocks } from '../content';
import { footerSnapshot } from '../session-facts';
import { modelRef } from '../models';
import type { OpContext, OpHandler } from '../op-context';
import { optText, text } from '../params';
import { SLASH_COMMANDS } from '../slash-commands';
import { forkSession, newSession } from './navigation';
import { PICKERS, pickedModel, pickedTreeItem, requestPicker } from './pickers';
import { setModel, setThinkingLevel } from './settings';

/**
 * The `command` op (every input the Emacs client sees starting with `/`) and the answers to the
 * pickers it opens. Results arrive as `command-result` events (`{:type "text" :message "✓ ..."}`,
 * `{:type "quit"}`, `{:type "new_session"}`, `{:type "error"}`); a command that fails says so there,
 * the request itself is still accepted. Afterwards a `session/updated` + `footer/updated` snapshot
 * goes out (the client marks itself busy when it sends a command; the snapshot sets it idle).
 */
const say = (ctx: OpContext, message: string, type = 'text') => ctx.emit('command-result', { type, message });

/** What a failed command says: a StrandError's or EDN error's message; anything else stays in the log. */
function failure(ctx: OpContext, err: unknown): string {
  if (err instanceof EdnOpError || err instanceof StrandError) return err.message;
  ctx.log.error({ err, op: ctx.req.op }, 'a slash command failed');
  return 'the command failed (see the gateway log)';
}

const splitRef = (ref: string) => ref.replace('/', ' ');

/** Runs one slash command; true when it moved the focus (the navigation sent its own snapshots). */
async function run(ctx: OpContext, sessionId: string, head: string, arg: string): Promise<boolean> {
  switch (head) {
    case '/model':
      if (!arg) return requestPicker(ctx, PICKERS.model, sessionId).then(() => false);
      {
        const [a, b] = arg.split(/\s+/);
        const settings = await setModel(ctx, sessionId, b ? modelRef(a, b) : a!);
        say(ctx, `✓ Model set to ${splitRef(settings.model)}`);
      }
      return false;
    case '/thinking':
      if (!arg) return requestPicker(ctx, PICKERS.thinking, sessionId).then(() => false);
      say(ctx, `✓ Thinking level set to ${(await setThinkingLevel(ctx, sessionId, arg)).thinking_level}`);
      return false;
    case '/compact': {
      const r = await ctx.sessions.compact(sessionId, arg || undefined, ctx.principal);
      say(ctx, r.compacted ? `✓ Compacted: ${r.tokens_before} → ${r.tokens_after} tokens` : 'Nothing to compact yet.');
      return false;
    }
    case '/new':
      ctx.emit('command-result', { type: 'new_session', message: `✓ New session ${await newSession(ctx)}` });
      return true;
    case '/fork':
      say(ctx, `✓ Forked into session ${await forkSession(ctx, sessionId, arg || undefined)}`);
      return true;
    case '/resume':
    case '/tree':
      if (!arg) return requestPicker(ctx, head === '/resume' ? PICKERS.resume : PICKERS.tree, sessionId).then(() => false);
      await ctx.navigate(arg);
      return true;
    case '/name':
      if (!arg) say(ctx, (await ctx.facts(sessionId).name()) ? `Session name: ${await ctx.facts(sessionId).name()}` : 'This session has no name: /name <name> sets one.');
      else say(ctx, `✓ Session name set to ${(await ctx.sessions.updateSettings(sessionId, { name: arg }, ctx.principal)).name ?? arg}`);
      return false;
    case '/history': {
      const lines = (await ctx.facts(sessionId).transcript()).flatMap(({ message: m }) => {
        if (m.role !== 'user' && m.role !== 'assistant') return [];
        const t = textOfBlocks(m.content).replace(/\s+/g, ' ').trim();
        return t ? [`${m.role === 'user' ? 'User' : 'ψ'}: ${t.length > 200 ? `${t.slice(0, 199)}…` : t}`] : [];
      });
      say(ctx, lines.length ? lines.slice(-50).join('\n') : 'No messages yet.');
      return false;
    }
    case '/status': {
      const facts = ctx.facts(sessionId);
      const [view, footer] = await Promise.all([facts.view(), footerSnapshot(facts)]);
      say(ctx, [`session ${sessionId} (${view.status}, ${view.agent_state})`, `project ${view.project_path}`, `${footer['model-text']}`, `${footer['stats-line']}`, `${view.message_count} messages, ${view.queue_length} queued`].join('\n'));
      return false;
    }
    case '/undo':
    case '/redo':
      say(ctx, await undo(ctx, sessionId, head === '/redo', arg));
      return false;
    case '/help':
    case '/?':
      say(ctx, SLASH_COMMANDS.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ''} — ${c.description}`).join('\n'));
      return false;
    case '/quit':
    case '/exit':
      ctx.emit('command-result', { type: 'quit' });
      return false;
    case '/login':
    case '/logout':
      say(ctx, 'strand has no login: providers use API keys from the environment of the gateway and the worker (ANTHROPIC_API_KEY, OPENAI_API_KEY or OPENAI_BASE_URL).');
      return false;
    default:
      say(ctx, `[not a command] ${[head, arg].filter(Boolean).join(' ')}`);
      return false;
  }
}

/**
 * `/undo [turn-id|entry-id] [force]` and `/redo [force]` (docs/undo.md): the HTTP revert, through the
 * `command` op psi already has (its op set has no revert). Without a point, the last turn that changed
 * files is undone.
 */
async function undo(ctx: OpContext, sessionId: string, redo: boolean, arg: string): Promise<string> {
  const words = arg.split(/\s+/).filter(Boolean);
  const force = words.includes('force');
  const point = words.find((w) => w !== 'force');
  let request: RevertRequest;
  if (redo) request = { redo: true };
  else if (point) request = /^t\d+$/.test(point) ? { turn_id: point } : { entry_id: point };
  else {
    const listed = await ctx.sessions.checkpointCommand(sessionId, { op: 'list' }, ctx.principal);
    const last = 'checkpoints' in listed ? listed.checkpoints.filter((c) => !c.reverted).at(-1) : undefined;
    if (!last) return 'Nothing to undo: no turn changed files since the last undo.';
    request = { turn_id: last.turn_id };
  }
  const result = await ctx.sessions.checkpointCommand(sessionId, { op: 'revert', ...request, ...(force ? { force } : {}) }, ctx.principal);
  if ('checkpoints' in result) return 'unexpected answer';
  const refused = revertRefusal(result, force);
  if (refused) throw refused;
  const files = result.files.map((f) => `${f.operation === 'delete' ? '−' : '↺'} ${f.path}`);
  const skipped = result.skipped?.length ? [`not undoable (beyond the checkpoint bounds): ${result.skipped.join(', ')}`] : [];
  return [`✓ ${redo ? 'Redone' : 'Undone'}: ${result.files.length} file(s)${'turn_id' in request && request.turn_id ? `, back to before ${request.turn_id}` : ''}`, ...files, ...skipped].join('\n');
}

/** An answer to a picker: apply the choice; true when it moved the focus. */
async function applyPick(ctx: OpContext, sessionId: string, action: string, value: EdnValue | undefined): Promise<boolean> {
  if (action === PICKERS.model) {
    const ref = pickedModel(value);
    if (!ref) throw new EdnOpError(EdnErrorCode.invalidParams, 'select-model needs a value {:provider :id}');
    say(ctx, `✓ Model set to ${splitRef((await setModel(ctx, sessionId, ref)).model)}`);
    return false;
  }
  if (action === PICKERS.thinking) {
    const level = typeof value === 'string' ? value : isKeyword(value) ? value.name : '';
    say(ctx, `✓ Thinking level set to ${(await setThinkingLevel(ctx, sessionId, level)).thinking_level}`);
    return false;
  }
  if (action === PICKERS.resume || action === PICKERS.tree) {
    const pick = pickedTreeItem(value);
    if (!pick) throw new EdnOpError(EdnErrorCode.invalidParams, `${action} needs a session id (or a fork point) as its value`);
    if ('switchTo' in pick) await ctx.navigate(pick.switchTo);
    else await forkSession(ctx, sessionId, pick.forkAt);
    return true;
  }
  say(ctx, `Unknown frontend action ${action}.`, 'error');
  return false;
}

const actionName = (v: EdnValue | undefined) => (typeof v === 'string' ? v.replace(/^:/, '') : isKeyword(v) ? v.name : undefined);

export const commandOps: Record<string, OpHandler> = {
  command: async (ctx) => {
    const input = text(ctx.params, 'text').trim();
    const head = input.split(/\s+/, 1)[0]!;
    const arg = input.slice(head.length).trim();
    const sessionId = await ctx.target();
    let moved = false;
    try {
      moved = input.startsWith('/') ? await run(ctx, sessionId, head, arg) : (say(ctx, `[not a command] ${input}`), false);
    } catch (err) {
      say(ctx, `✗ ${head}: ${failure(ctx, err)}`, 'error');
    }
    if (!moved) await ctx.snapshots(sessionId, ['session', 'footer']);
    return { accepted: true, handled: true };
  },

  frontend_action_result: async (ctx) => {
    const requestId = text(ctx.params, 'request-id');
    const pending = ctx.actions.get(requestId);
    ctx.actions.delete(requestId);
    const uiAction = ctx.params['ui/action'];
    const fromUi = uiAction && typeof uiAction === 'object' && !Array.isArray(uiAction) ? actionName((uiAction as Record<string, EdnValue>)['ui/action-name']) : undefined;
    const action = pending?.action ?? actionName(ctx.params['action-name']) ?? fromUi ?? '';
    const sessionId = pending?.sessionId ?? (await ctx.target());
    const status = optText(ctx.params, 'status') ?? 'submitted';
    let moved = false;
    if (status === 'cancelled') say(ctx, `Cancelled ${action}.`);
    else if (status === 'failed') say(ctx, optText(ctx.params, 'error-message') ?? `Frontend action failed: ${action}`, 'error');
    else {
      try {
        moved = await applyPick(ctx, sessionId, action, ctx.params.value);
      } catch (err) {
        say(ctx, `✗ ${action}: ${failure(ctx, err)}`, 'error');
      }
    }
    if (!moved) await ctx.snapshots(sessionId, ['session', 'footer']);
    return { accepted: true, 'request-id': requestId };
  },
};
