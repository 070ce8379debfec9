import type { ApprovalPolicy } from './session-settings';

/**
 * Whether a tool call waits for a person's yes. Read-only tools run without asking when the policy
 * auto-approves them (the default); a tool someone answered "always" for runs without asking; every
 * other call (writes, deletes, shell) asks. One function, used by the activity that announces the
 * call and by the workflow that waits, so both always agree.
 */
export function requiresApproval(policy: ApprovalPolicy, tool: { name: string; readOnly: boolean }): boolean {
  if (policy.always_allow.includes(tool.name)) return false;
  if (tool.readOnly && policy.auto_approve_readonly) return false;
  return true;
}
