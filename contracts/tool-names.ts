/**
 * The built-in tools' names and which of them only read, without their parameter schemas
 * (contracts/tools.ts): what the turn workflow needs to judge a call. Zod-free on purpose: every turn
 * run evaluates the modules its workflow imports, on the path to the first delta, and the schemas
 * cost more than the rest of the turn's contracts (bench:workflow-start).
 */
export const TOOL_NAMES = ['read_file', 'write_file', 'edit_file', 'delete_file', 'list_files', 'search_files', 'shell_exec', 'git_status', 'git_diff', 'task'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

/**
 * Read-only tools may be auto-approved (approval-policy.ts); the others change the workspace. `task`
 * (a sub-agent, docs/subagents.md) only reads, so it runs without approval where reads do.
 */
const READ_ONLY_TOOLS: ReadonlySet<string> = new Set<ToolName>(['read_file', 'list_files', 'search_files', 'git_status', 'git_diff', 'task']);

/** Whether a built-in tool only reads; false for names that are not built-in tools. */
export function isReadOnlyTool(name: string): boolean {
  return READ_ONLY_TOOLS.has(name);
}
