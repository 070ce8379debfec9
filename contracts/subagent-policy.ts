import type { ApprovalPolicy } from './session-settings';

/**
 * The sub-agent rules a turn applies (docs/subagents.md): the `task` tool's name, the tools a sub-agent
 * gets, its approval policy and what a refused call says. Zod-free (contracts/subagents.ts, which
 * re-exports these, has the schemas), so a turn run evaluates no schema for them.
 */

export const TASK_TOOL = 'task';

/**
 * The tools a sub-agent gets: the built-in read-only ones. No write, edit, delete or shell, and no
 * `task` (depth cap 1: a sub-agent never starts another).
 */
export const SUBAGENT_TOOLS: readonly string[] = ['read_file', 'list_files', 'search_files', 'git_status', 'git_diff'];

/**
 * A sub-agent's approval policy: its own tools run without asking (nobody could answer: approvals go
 * to the parent's session), everything else would ask, which a sub-agent refuses (fail closed).
 */
export function subagentPolicy(parent: ApprovalPolicy, tools: readonly string[]): ApprovalPolicy {
  return { ...parent, plan_mode: false, always_allow: [...tools] };
}

/** The result of a call a sub-agent may not make (not offered to it, or one that would ask for approval). */
export function subagentRefusal(tool: string): string {
  return `This ${tool} call was not run: a sub-agent may only use ${SUBAGENT_TOOLS.join(', ')}, without approval. Report what you found instead.`;
}
