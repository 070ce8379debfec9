import fs from 'node:fs';
import path from 'node:path';
import { thinkingLevelSchema, type SessionSettings } from '../../contracts/session-settings';
import type { ChatController } from './chat-controller';
import type { ListedSession } from './gateway-client';
import type { SessionWish } from './session-choice';
import { sessionLabel } from './session-choice';
import type { BudgetWish, ParsedCommand } from '../../contracts/slash-commands';
import { budgetCapsText, compactResultText } from '../../contracts/user-texts';
import { helpText } from './slash-commands';
import { redoLastRevert, undoLastTurn } from './undo';

const oneLine = (s: string, max = 70) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** Opens a new session of the chat's project. */
async function openNew(chat: ChatController): Promise<void> {
  const { session_id } = await chat.client.createSession(chat.cwd);
  await chat.open(session_id);
  chat.say('info', `new session ${session_id} in ${chat.cwd}`);
}

/** A picker of sessions (newest first) that opens the chosen one; `withNew` offers a new one first. */
function sessionPicker(chat: ChatController, title: string, sessions: ListedSession[], withNew: boolean): void {
  const items = sessions.map((s) => ({ label: `${s.session_id === chat.sessionId ? '● ' : ''}${sessionLabel(s)}`, value: s.session_id }));
  chat.pick({
    title,
    items: withNew ? [{ label: '+ a new session', value: '' }, ...items] : items,
    choose: (value) => chat.attempt('the session did not open', () => (value ? chat.open(value) : openNew(chat))),
  });
}

/**
 * Where the chat starts: a named or new session at once; otherwise the project's sessions to pick from
 * (a new one when it has none).
 */
export async function startChat(chat: ChatController, wish: SessionWish | { kind: 'pick' }): Promise<void> {
  if (wish.kind === 'id') return chat.open((await chat.client.session(wish.id)).session_id);
  const sessions = wish.kind === 'new' ? [] : await chat.client.projectSessions(chat.cwd);
  if (sessions.length === 0) return openNew(chat);
  if (wish.kind === 'latest') return chat.open(sessions[0]!.session_id);
  sessionPicker(chat, `Sessions of ${chat.cwd}`, sessions, true);
}

/** The models a person can switch to: what the stack can run (GET /api/models: a local server's own models too). */
async function modelChoices(chat: ChatController): Promise<Array<{ ref: string; id: string; name: string }>> {
  const { models, notice } = await chat.client.models();
  if (notice) chat.say('warning', notice);
  return models;
}

async function setModel(chat: ChatController, id: string, model?: string): Promise<void> {
  const changed = await chat.client.setModel(id, model);
  chat.say('info', `model: ${changed.model} (reasoning ${changed.thinking_level})${changed.notice ? ` — ${changed.notice}` : ''}`);
  await chat.refresh();
}

async function setThinking(chat: ChatController, id: string, level?: string): Promise<void> {
  const changed = await chat.client.setThinking(id, level);
  chat.say('info', `reasoning: ${changed.thinking_level} (${changed.model})`);
  await chat.refresh();
}

/** `/plan [on|off]`: plan mode (the approval policy's `plan_mode`); applies from the next turn. No mode: switch it over. */
async function setPlanMode(chat: ChatController, id: string, mode: 'on' | 'off' | undefined): Promise<void> {
  const route = `/api/sessions/${encodeURIComponent(id)}/settings`;
  const wanted = mode === undefined ? (await chat.client.call<SessionSettings>('GET', route)).approval.plan_mode !== true : mode === 'on';
  const changed = await chat.client.call<SessionSettings>('PATCH', route, { approval: { plan_mode: wanted } });
  chat.say('info', changed.approval.plan_mode ? 'plan mode on: the agent reads and plans; edits and commands are refused (from the next turn)' : 'plan mode off: the agent may change files and run commands again (from the next turn)');
  await chat.refresh();
}

/** `/budget [usd | tokens <n> | off]`: the session's spending caps (docs/budgets.md); a turn waiting at a cap continues once it is raised. */
async function setBudget(chat: ChatController, id: string, change: BudgetWish | undefined): Promise<void> {
  const route = `/api/sessions/${encodeURIComponent(id)}/settings`;
  if (change === undefined) {
    const current = await chat.client.call<SessionSettings>('GET', route);
    return chat.say('info', `budget: ${budgetCapsText(current.budget)} (/budget <usd>, /budget tokens <n>, /budget off)`);
  }
  const changed = await chat.client.call<SessionSettings>('PATCH', route, { budget: change });
  chat.say('info', `budget: ${budgetCapsText(changed.budget)}${chat.view.phase === 'waiting_budget' ? ' — the waiting turn checks it now' : ''}`);
  await chat.refresh();
}

async function fork(chat: ChatController, id: string, entryId: string): Promise<void> {
  const { session_id } = await chat.client.fork(id, entryId);
  await chat.open(session_id);
  chat.say('info', `forked into session ${session_id}`);
}

/** Runs a parsed slash command (contracts/slash-commands.ts) on the chat. */
export async function runSlashCommand(chat: ChatController, command: ParsedCommand): Promise<void> {
  const id = chat.sessionId;
  if (!id && !['new', 'resume', 'sessions', 'help', 'quit'].includes(command.name)) return;
  switch (command.name) {
    case 'help':
      return chat.say('info', helpText());
    case 'quit':
      chat.quitting = true;
      return chat.changed();
    case 'model': {
      if (command.model) return setModel(chat, id!, command.model);
      const models = await modelChoices(chat);
      if (models.length === 0) return setModel(chat, id!);
      const current = chat.session?.model;
      const items = models.map((m) => ({ label: `${m.ref === current ? '● ' : ''}${m.ref}${m.name !== m.id ? `  ${m.name}` : ''}`, value: m.ref }));
      chat.pick({ title: `Model (now ${current ?? '?'})`, items, choose: (m) => chat.attempt('/model', () => setModel(chat, id!, m)) });
      return;
    }
    case 'thinking': {
      if (command.level) return setThinking(chat, id!, command.level);
      const current = chat.session?.thinking_level;
      chat.pick({ title: `Reasoning level (now ${current ?? '?'})`, items: thinkingLevelSchema.options.map((l) => ({ label: `${l === current ? '● ' : ''}${l}`, value: l })), choose: (l) => chat.attempt('/thinking', () => setThinking(chat, id!, l)) });
      return;
    }
    case 'plan':
      return setPlanMode(chat, id!, command.mode);
    case 'budget':
      return setBudget(chat, id!, command.change);
    case 'compact': {
      chat.say('info', 'compacting the conversation…');
      chat.say('info', compactResultText(await chat.client.compact(id!, command.instructions)));
      return chat.refresh();
    }
    case 'undo':
      return undoLastTurn(chat, id!, command.point, command.force);
    case 'redo':
      return redoLastRevert(chat, id!, command.force);
    case 'fork': {
      if (command.entryId) return fork(chat, id!, command.entryId);
      const points = await chat.client.forkPoints(id!);
      if (points.length === 0) return chat.say('warning', 'nothing to fork from yet: no prompt in this session');
      chat.pick({ title: 'Fork: a new session holding the conversation up to this prompt', items: [...points].reverse().map((p) => ({ label: oneLine(p.text), value: p.entry_id })), choose: (entry) => chat.attempt('/fork', () => fork(chat, id!, entry)) });
      return;
    }
    case 'tree': {
      if (command.sessionId) return chat.open((await chat.client.session(command.sessionId)).session_id);
      const [sessions, points] = await Promise.all([chat.client.projectSessions(chat.cwd), chat.client.forkPoints(id!)]);
      const items = [
        ...sessions.map((s) => ({ label: `${s.session_id === id ? '● ' : '  '}${sessionLabel(s)}`, value: `open:${s.session_id}` })),
        ...points.map((p) => ({ label: `  ⑂ fork at: ${oneLine(p.text)}`, value: `fork:${p.entry_id}` })),
      ];
      chat.pick({
        title: `Sessions of ${chat.cwd}, and fork points of this one`,
        items,
        choose: (v) => chat.attempt('/tree', () => (v.startsWith('open:') ? chat.open(v.slice(5)) : fork(chat, id!, v.slice(5)))),
      });
      return;
    }
    case 'sessions':
      return sessionPicker(chat, `Sessions of ${chat.cwd}`, await chat.client.projectSessions(chat.cwd), true);
    case 'new':
      return openNew(chat);
    case 'resume': {
      if (command.sessionId) return chat.open((await chat.client.session(command.sessionId)).session_id);
      const page = await chat.client.call<{ sessions: ListedSession[] }>('GET', '/api/sessions?limit=200');
      return sessionPicker(chat, 'Resume a session', [...page.sessions].sort((a, b) => b.updated_at - a.updated_at), false);
    }
    case 'export': {
      const file = path.resolve(chat.cwd, command.file ?? `strand-${id}.md`);
      fs.writeFileSync(file, await chat.client.transcript(id!, file.endsWith('.org') ? 'org' : file.endsWith('.json') ? 'json' : 'markdown'));
      return chat.say('info', `transcript written to ${file}`);
    }
  }
}
