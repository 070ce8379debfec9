/**
 * What marks a session as a job's, and why such a session refuses a client's commands. Kept apart from
 * job-workflow.ts so that a session workflow, which checks a prompt against it, evaluates no job module
 * (services/worker/workflow-bundle.test.ts).
 */

/** Session metadata key naming the job a session belongs to. */
export const JOB_SESSION_METADATA_KEY = 'strand.job';

/**
 * Why a client's command into a job's session is refused (409 JOB_SESSION), naming what a person can
 * do instead: the gateway's refusal and the session workflow's (a `checkedPrompt`) say the same.
 */
export function jobSessionRefusal(sessionId: string, jobId: string): string {
  return `session ${sessionId} belongs to job ${jobId}: the job runs its turns and owns its settings. Steer its running turn (POST /api/sessions/${sessionId}/steer), answer its escalated calls (POST /api/jobs/${jobId}/escalations/{tool_call_id}), resume it when it needs a person (POST /api/jobs/${jobId}/resume) or cancel it (POST /api/jobs/${jobId}/cancel)`;
}
