import type { AvailableCommand } from '@agentclientprotocol/sdk';
import { StrandError } from '../../../contracts/errors';
import { thinkingLevelSchema } from '../../../contracts/session-settings';
import { availableModels } from '../edn/session/models';
import type { SessionService } from '../sessions/session-service';

/**
 * strand's slash commands as an ACP client offers them (`available_commands_update`): a prompt that
 * starts with one of these names runs the command instead of a turn, and its answer comes back as
 * the agent's message. The commands that move between sessions (/new, /resume, /fork) are the
 * editor's own in ACP, so they are not offered.
 */
export const ACP_COMMANDS: AvailableCommand[] = [
  { name: 'compact', description: 'Summarize the conversation so far to free context', input: { hint: 'optional instructions for the summary' } },
  { name: 'model', description: 'Show the models, or switch to the one named', input: { hint: 'provider/model' } },
  { name: 'thinking', description: 'Show or set the thinking level', input: { hint: thinkingLevelSchema.options.join(' | ') } },
  { name: 'name', description: "Show or set this session's name", input: { hint: 'a name' } },
  { name: 'status', description: "Show this session's id, model, state and usage" },
  { name: 'help', description: 'List these commands' },
];

export interface CommandTarget {
  sessions: SessionService;
  sessionId: string;
  principal: string | undefined;
}

/** The command a prompt names (`/name args`), or undefined when it is an ordinary prompt. */
export function parseCommand(text: string): { name: string; arg: string } | undefined {
  const m = /^\/([a-z][a-z-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m || !ACP_COMMANDS.some((c) => c.name === m[1])) return undefined;
  return { name: m[1]!, arg: (m[2] ?? '').trim() };
}

/** Runs a command; the text is the agent's answer. A refused command (an unknown model, …) answers its reason. */
export async function runCommand(cmd: { name: string; arg: string }, t: CommandTarget): Promise<string> {
  try {
    return await run(cmd, t);
  } catch (err) {
    if (err instanceof StrandError) return `/${cmd.name}: ${err.message}`;
    throw err;
  }
}

async function run({ name, arg }: { name: string; arg: string }, { sessions, sessionId, principal }: CommandTarget): Promise<string> {
  switch (name) {
    case 'compact': {
      const r = await sessions.compact(sessionId, arg || undefined, principal);
      return r.compacted ? `Compacted: ${r.tokens_before} → ${r.tokens_after} tokens.` : 'Nothing to compact yet.';
    }
    case 'model': {
      if (arg) return `Model set to ${(await sessions.updateSettings(sessionId, { model: arg }, principal)).model}.`;
      const current = (await sessions.describe(sessionId, principal)).model;
      return ['Models (`/model provider/model` switches):', ...availableModels(sessions).map((m) => `${m.ref === current ? '*' : '-'} ${m.ref} (${m.name})`)].join('\n');
    }
    case 'thinking': {
      if (!arg) return `Thinking level: ${(await sessions.describe(sessionId, principal)).thinking_level} (one of ${thinkingLevelSchema.options.join(', ')}).`;
      const level = thinkingLevelSchema.safeParse(arg);
      if (!level.success) return `/thinking: "${arg}" is not a thinking level (one of ${thinkingLevelSchema.options.join(', ')}).`;
      return `Thinking level set to ${(await sessions.updateSettings(sessionId, { thinking_level: level.data }, principal)).thinking_level}.`;
    }
    case 'name':
      if (!arg) return `Session name: ${(await sessions.describe(sessionId, principal)).title}.`;
      return `Session name set to ${(await sessions.updateSettings(sessionId, { name: arg }, principal)).name ?? arg}.`;
    case 'status': {
      const [view, stats] = await Promise.all([sessions.describe(sessionId, principal), sessions.stats(sessionId, principal)]);
      return [
        `session ${sessionId} (${view.status}, ${view.agent_state})`,
        `project ${view.project_path}`,
        `model ${view.model}, thinking ${view.thinking_level}`,
        `${stats.usage.input} tokens in, ${stats.usage.output} out, $${stats.usage.cost_usd.toFixed(4)}; context ${Math.round(stats.context.share * 100)}% of ${stats.context.window}`,
        `${view.message_count} messages, ${view.queue_length} queued`,
        ...(stats.budget ? [`budget ${[typeof stats.budget.max_cost_usd === 'number' ? `$${stats.budget.max_cost_usd}` : '', typeof stats.budget.max_tokens === 'number' ? `${stats.budget.max_tokens} tokens` : ''].filter(Boolean).join(', ')} (spent $${stats.usage.cost_usd.toFixed(4)}, ${stats.usage.input + stats.usage.output + stats.usage.cache_read + stats.usage.cache_write} tokens)`] : []),
      ].join('\n');
    }
    default:
      return ACP_COMMANDS.map((c) => `/${c.name}${c.input ? ` <${c.input.hint}>` : ''}: ${c.description}`).join('\n');
  }
}
