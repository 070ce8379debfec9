import type { AvailableCommand } from '@agentclientprotocol/sdk';
import { StrandError } from '../../../contracts/errors';
import { thinkingLevelSchema } from '../../../contracts/session-settings';
import { commandsFor, commandUsage, parseSlashCommand, type ParsedCommand, type ParseResult } from '../../../contracts/slash-commands';
import { budgetCapsText, compactResultText, modelSetText, nameSetText, thinkingSetText } from '../../../contracts/user-texts';
import type { JobService } from '../jobs/job-service';
import { jobListText, jobViewText, listJobDigests } from '../jobs/job-digest';
import { availableModels } from '../sessions/model-list';
import type { SessionRef, SessionService } from '../sessions/session-service';

/**
 * strand's slash commands as an ACP client offers them (`available_commands_update`): the table's
 * entries that ACP supports (contracts/slash-commands.ts). A prompt that starts with one of these names
 * runs the command instead of a turn, and its answer comes back as the agent's message. The commands
 * that move between sessions (/new, /resume, /fork) are the editor's own in ACP, so they are not offered.
 */
export const ACP_COMMANDS: AvailableCommand[] = commandsFor('acp').map((c) => ({ name: c.name, description: c.help, ...(c.args ? { input: { hint: c.args } } : {}) }));

export interface CommandTarget {
  sessions: SessionService;
  jobs: JobService;
  sessionId: string;
  principal: string | undefined;
}

/**
 * A prompt as ACP reads it: a command of ACP's (parsed, or why its argument is wrong), or undefined
 * for an ordinary prompt — which includes `/anything` that is not one of ACP's commands: the model reads it.
 */
export function commandOfPrompt(text: string): ParseResult | undefined {
  const parsed = parseSlashCommand(text, 'acp');
  return parsed && !parsed.ok && parsed.unknown ? undefined : parsed;
}

/** Runs a command; the text is the agent's answer. A refused command (an unknown model, a bad argument, …) answers its reason. */
export async function runCommand(parsed: ParseResult, t: CommandTarget): Promise<string> {
  if (!parsed.ok) return parsed.error;
  try {
    return await run(parsed.command, t);
  } catch (err) {
    if (err instanceof StrandError) return `/${parsed.command.name}: ${err.message}`;
    throw err;
  }
}

async function run(command: ParsedCommand, { sessions, jobs, sessionId, principal }: CommandTarget): Promise<string> {
  // A command is one client action: the session is read and its owner checked once for it (not at all for /help).
  let opened: Promise<SessionRef> | undefined;
  const session = () => (opened ??= sessions.open(sessionId, principal));
  switch (command.name) {
    case 'compact':
      return compactResultText(await (await session()).compact(command.instructions));
    case 'model': {
      if (command.model) return modelSetText((await (await session()).updateSettings({ model: command.model })).model);
      const current = (await (await session()).describe()).model;
      return ['Models (`/model provider/model` switches):', ...(await availableModels(sessions)).map((m) => `${m.ref === current ? '*' : '-'} ${m.ref} (${m.name})`)].join('\n');
    }
    case 'thinking':
      if (!command.level) return `Thinking level: ${(await (await session()).describe()).thinking_level} (one of ${thinkingLevelSchema.options.join(', ')}).`;
      return thinkingSetText((await (await session()).updateSettings({ thinking_level: command.level })).thinking_level);
    case 'name':
      if (!command.title) return `Session name: ${(await (await session()).describe()).title}.`;
      return nameSetText((await (await session()).updateSettings({ name: command.title })).name ?? command.title);
    case 'status': {
      const [view, stats] = await Promise.all([(await session()).describe(), (await session()).stats()]);
      return [
        `session ${sessionId} (${view.status}, ${view.agent_state})`,
        `project ${view.project_path}`,
        `model ${view.model}, thinking ${view.thinking_level}`,
        `${stats.usage.input} tokens in, ${stats.usage.output} out, $${stats.usage.cost_usd.toFixed(4)}; context ${Math.round(stats.context.share * 100)}% of ${stats.context.window}`,
        `${view.message_count} messages, ${view.queue_length} queued`,
        ...(stats.budget ? [`budget ${budgetCapsText(stats.budget)} (spent $${stats.usage.cost_usd.toFixed(4)}, ${stats.usage.input + stats.usage.output + stats.usage.cache_read + stats.usage.cache_write} tokens)`] : []),
      ].join('\n');
    }
    case 'jobs':
      return jobListText(await listJobDigests(jobs, principal, { limit: 20 }), 'Watch one by loading its session `job-<id>` (session/load): its conversation, then its events as they come; /job <id> shows it.');
    case 'job':
      if (!command.jobId) return run({ name: 'jobs' }, { sessions, jobs, sessionId, principal });
      return `${jobViewText(await jobs.get(command.jobId, principal))}\nWatch it by loading session job-${command.jobId}.`;
    default:
      return commandsFor('acp').map((c) => `${commandUsage(c)}: ${c.help}`).join('\n');
  }
}
