import os from 'node:os';
import path from 'node:path';
import { instructionsMaxBytesFromEnv } from '../../activities/prompt/project-instructions';
import { buildSystemPrompt } from '../../activities/prompt/system-prompt';
import { createToolExecutor } from '../../activities/tools';
import { TOOL_DEFINITIONS, toolDefinition, toolsForModel } from '../../contracts/tools';

/** Environment variables a shell command must not see: the worker's credentials. */
const SECRET_NAME = /(API_KEY|_TOKEN|_TOKENS|_SECRET|PASSWORD|_TOKENS_FILE)$/i;

/** The worker's environment minus credentials, for commands the model runs. */
export function scrubbedShellEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !SECRET_NAME.test(name)));
}

/**
 * The workspace tools as the activities use them: the executor (shell output beyond the cap is kept
 * in STRAND_TOOL_OUTPUT_DIR, readable with read_file), what the model is offered, which tools only
 * read (for the approval policy) and the system prompt that names them.
 */
export function createToolWiring(env: NodeJS.ProcessEnv = process.env) {
  const spillDir = env.STRAND_TOOL_OUTPUT_DIR?.trim() || path.join(os.tmpdir(), 'strand-tool-output');
  const toolExecutor = createToolExecutor({ spillDir, shellEnv: scrubbedShellEnv(env) });
  const instructionsMaxBytes = instructionsMaxBytesFromEnv(env);
  return {
    toolExecutor,
    tools: toolsForModel(),
    isReadOnly: (name: string) => toolDefinition(name)?.readOnly ?? false,
    systemPrompt: (input: { project_path: string; model: string; plan_mode?: boolean }) => buildSystemPrompt({ ...input, tools: TOOL_DEFINITIONS, instructionsMaxBytes }),
  };
}
