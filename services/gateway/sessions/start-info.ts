import type { SessionMeta } from '../../../contracts/session-store/schemas';
import { readSessionRecord } from '../../../contracts/session-record';
import { SESSION_METADATA_KEYS as KEYS } from '../../../contracts/session-settings';
import { JOB_SESSION_METADATA_KEY } from '../../../contracts/job-session';

/** The session's owner as its metadata names it; none for sessions made with auth off. */
export function ownerOf(meta: SessionMeta | undefined): string | undefined {
  const owner = meta?.metadata?.[KEYS.owner];
  return typeof owner === 'string' ? owner : undefined;
}

/** The job a session belongs to (docs/jobs.md), if it is a job's. */
export function jobOf(meta: SessionMeta): string | undefined {
  const jobId = meta.metadata?.[JOB_SESSION_METADATA_KEY];
  return typeof jobId === 'string' ? jobId : undefined;
}

/** What a session's workflow is started with (SessionCommands), read from its store record: with its owner and job, which the run checks prompts against. */
export function startInfo(meta: SessionMeta) {
  const record = readSessionRecord(meta.metadata);
  const owner = ownerOf(meta);
  const jobId = jobOf(meta);
  return { session_id: meta.session_id, project_path: record.project_path, model: record.settings.model, ...(owner ? { owner } : {}), ...(jobId ? { job_id: jobId } : {}) };
}
