import type { ApprovalPolicy } from './session-settings';

/** What becomes of a tool call: it runs at once, waits for a person's yes, or is refused by plan mode. */
export type ToolCallHandling = 'run' | 'ask' | 'refuse';

/**
 * The one decision about a tool call, used by the activity that announces the call and by the
 * workflow that waits for approvals and runs tools, so both always agree. Plan mode comes first: a
 * call that could change something is refused (not asked about), even for a tool answered "always".
 * Then: a tool someone answered "always" for runs; read-only tools run when the policy auto-approves
 * them (the default); every other call (writes, deletes, shell) asks. A policy recorded before plan
 * mode existed has no `plan_mode`: it counts as off.
 */
export function toolCallHandling(policy: ApprovalPolicy, tool: { name: string; readOnly: boolean }): ToolCallHandling {
  if (policy.plan_mode === true && !tool.readOnly) return 'refuse';
  if (policy.always_allow.includes(tool.name)) return 'run';
  if (tool.readOnly && policy.auto_approve_readonly) return 'run';
  return 'ask';
}

/** Whether a tool call waits for a person's yes (toolCallHandling). */
export function requiresApproval(policy: ApprovalPolicy, tool: { name: string; readOnly: boolean }): boolean {
  return toolCallHandling(policy, tool) === 'ask';
}
