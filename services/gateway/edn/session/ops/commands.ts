import { revertRefusal, type RevertRequest } from '../../../../../contracts/checkpoints';
import { StrandError } from '../../../../../contracts/errors';
import { commandsFor, commandUsage, parseSlashCommand, type ParsedCommand } from '../../../../../contracts/slash-commands';
import { compactResultText, modelSetText, nameSetText, NO_LOGIN_TEXT, thinkingSetText } from '../../../../../contracts/user-texts';
import { isKeyword, type EdnValue } from '../../edn-value';
import { EdnErrorCode, EdnOpError } from '../../protocol';
import { textOfBlocks } from '../content';
import { footerSnapshot } from '../session-facts';
import type { OpContext, OpHandler } from '../op-context';
import { optText, text } from '../params';
import { jobListText, jobViewText, listJobDigests } from '../../../jobs/job-digest';
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

/** Runs one parsed slash command (contracts/slash-commands.ts); true when it moved the focus (the navigation sent its own snapshots). */
async function run(ctx: OpContext, sessionId: string, command: ParsedCommand): Promise<boolean> {
  switch (command.name) {
    case 'model':
      if (!command.model) return requestPicker(ctx, PICKERS.model, sessionId).then(() => false);
      say(ctx, `✓ ${modelSetText(splitRef((await setModel(ctx, sessionId, command.model)).model))}`);
      return false;
    case 'thinking':
      if (!command.level) return requestPicker(ctx, PICKERS.thinking, sessionId).then(() => false);
      say(ctx, `✓ ${thinkingSetText((await setThinkingLevel(ctx, sessionId, command.level)).thinking_level)}`);
      return false;
    case 'compact': {
      const r = await (await ctx.session(sessionId)).compact(command.instructions);
      say(ctx, `${r.compacted ? '✓ ' : ''}${compactResultText(r)}`);
      return false;
    }
    case 'new':
      ctx.emit('command-result', { type: 'new_session', message: `✓ New session ${await newSession(ctx)}` });
      return true;
    case 'fork':
      say(ctx, `✓ Forked into session ${await forkSession(ctx, sessionId, command.entryId)}`);
      return true;
    case 'resume':
    case 'tree':
      if (!command.sessionId) return requestPicker(ctx, command.name === 'resume' ? PICKERS.resume : PICKERS.tree, sessionId).then(() => false);
      await ctx.navigate(command.sessionId);
      return true;
    case 'name':
      if (!command.title) say(ctx, (await ctx.facts(sessionId).name()) ? `Session name: ${await ctx.facts(sessionId).name()}` : 'This session has no name: /name <name> sets one.');
      else say(ctx, `✓ ${nameSetText((await (await ctx.session(sessionId)).updateSettings({ name: command.title })).name ?? command.title)}`);
      return false;
    case 'history': {
      const lines = (await ctx.facts(sessionId).transcript()).flatMap(({ message: m }) => {
        if (m.role !== 'user' && m.role !== 'assistant') return [];
        const t = textOfBlocks(m.content).replace(/\s+/g, ' ').trim();
        return t ? [`${m.role === 'user' ? 'User' : 'ψ'}: ${t.length > 200 ? `${t.slice(0, 199)}…` : t}`] : [];
      });
      say(ctx, lines.length ? lines.slice(-50).join('\n') : 'No messages yet.');
      return false;
    }
    case 'status': {
      const facts = ctx.facts(sessionId);
      const [view, footer] = await Promise.all([facts.view(), footerSnapshot(facts)]);
      say(ctx, [`session ${sessionId} (${view.status}, ${view.agent_state})`, `project ${view.project_path}`, `${footer['model-text']}`, `${footer['stats-line']}`, `${view.message_count} messages, ${view.queue_length} queued`].join('\n'));
      return false;
    }
    case 'undo':
      say(ctx, await undo(ctx, sessionId, false, command.point, command.force));
      return false;
    case 'redo':
      say(ctx, await undo(ctx, sessionId, true, undefined, command.force));
      return false;
    case 'jobs':
      say(ctx, jobListText(await listJobDigests(ctx.jobs, ctx.principal, { limit: 20 }), 'Watch one with /job <id> (its session becomes this one).'));
      return false;
    case 'job': {
      if (!command.jobId) return run(ctx, sessionId, { name: 'jobs' });
      // Read (and owner-checked) first: another principal's job is no job, as over HTTP.
      const job = await ctx.jobs.get(command.jobId, ctx.principal);
      await ctx.navigate(job.session_id);
      say(ctx, jobViewText(job));
      return true;
    }
    case 'help':
      say(ctx, commandsFor('edn').map((c) => `${commandUsage(c)} — ${c.help}`).join('\n'));
      return false;
    case 'quit':
      ctx.emit('command-result', { type: 'quit' });
      return false;
    case 'login':
      say(ctx, NO_LOGIN_TEXT);
      return false;
    default:
      // The chat's own commands (/plan, /budget, /export, /sessions) are not offered here: parsed as unknown.
      say(ctx, `[not a command] /${command.name}`);
      return false;
  }
}

/**
 * `/undo [turn-id|entry-id] [force]` and `/redo [force]` (docs/undo.md): the HTTP revert, through the
 * `command` op psi already has (its op set has no revert). Without a point, the last turn that changed
 * files is undone.
 */
async function undo(ctx: OpContext, sessionId: string, redo: boolean, point: string | undefined, force: boolean): Promise<string> {
  let request: RevertRequest;
  if (redo) request = { redo: true };
  else if (point) request = /^t\d+$/.test(point) ? { turn_id: point } : { entry_id: point };
  else {
    const listed = await (await ctx.session(sessionId)).checkpointCommand({ op: 'list' });
    const last = 'checkpoints' in listed ? listed.checkpoints.filter((c) => !c.reverted).at(-1) : undefined;
    if (!last) return 'Nothing to undo: no turn changed files since the last undo.';
    request = { turn_id: last.turn_id };
  }
  const result = await (await ctx.session(sessionId)).checkpointCommand({ op: 'revert', ...request, ...(force ? { force } : {}) });
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
    say(ctx, `✓ ${modelSetText(splitRef((await setModel(ctx, sessionId, ref)).model))}`);
    return false;
  }
  if (action === PICKERS.thinking) {
    const level = typeof value === 'string' ? value : isKeyword(value) ? value.name : '';
    say(ctx, `✓ ${thinkingSetText((await setThinkingLevel(ctx, sessionId, level)).thinking_level)}`);
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
    const parsed = parseSlashCommand(input, 'edn');
    const sessionId = await ctx.target();
    let moved = false;
    if (!parsed || (!parsed.ok && parsed.unknown)) say(ctx, `[not a command] ${input}`);
    else if (!parsed.ok) say(ctx, `✗ ${parsed.error}`, 'error');
    else {
      try {
        moved = await run(ctx, sessionId, parsed.command);
      } catch (err) {
        say(ctx, `✗ /${parsed.command.name}: ${failure(ctx, err)}`, 'error');
      }
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
