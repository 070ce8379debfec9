import { JOB_TOOL_NAMES, jobRuleFor, type JobSpec } from '../../contracts/job-spec';
import type { ApprovalPolicy } from '../../contracts/session-settings';

/**
 * The job's policy as the turn's approval policy, where it maps: every built-in tool whose rule is
 * `allow` runs without asking (`always_allow`), every other call asks, and the job workflow answers
 * (it is the turn's parent and hears of calls waiting through the turn's progress reports):
 * `deny` at once, `escalate` after a person's answer or the escalation's timeout.
 *
 * What does not map onto the session's policy, and is therefore done by the job workflow:
 * - escalation timeouts with the outcomes `skip` and `abort` (the session's timeout only approves or
 *   rejects), and the name of who answered;
 * - `deny` (the session has no refusal by tool other than plan mode's, which refuses every writer);
 * - MCP tools allowed by name or by server: their model-facing names are only known once the
 *   server has listed them, so they ask and the job approves them at once.
 * The turn's own approval timeout is set past the job's deadline, and past the wait for a person's
 * resume after an `abort` (the deadline moves later by that wait), so it never decides before the job.
 */
export function jobApprovalPolicy(spec: JobSpec): ApprovalPolicy {
  return {
    auto_approve_readonly: false,
    always_allow: JOB_TOOL_NAMES.filter((name) => jobRuleFor(spec.policy, name).rule === 'allow'),
    timeout_s: spec.limits.deadline_s + 3600 + (spec.policy.escalation.on_timeout === 'abort' ? spec.policy.escalation.resume_wait_s : 0),
    default_decision: 'reject',
    plan_mode: false,
  };
}
