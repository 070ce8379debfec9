import type { ErrorCode } from '../../../../contracts/errors';

/** The prose of the document: what a reader needs before the first route. */
export const API_DESCRIPTION = `The HTTP REST + SSE face of strand's gateway (binding contract: docs/http.md; the WebSocket
RPC protocol's HTTP routes under \`/v1\` follow docs/websocket.md). The server listed here is the address this document was
fetched from (or STRAND_GATEWAY_PUBLIC_URL when the gateway sits behind a proxy); a local stack listens on
\`http://127.0.0.1:9420\` unless STRAND_GATEWAY_PORT says otherwise.

**Auth.** With tokens configured (STRAND_TOKENS or STRAND_TOKENS_FILE) every route needs
\`Authorization: Bearer <token>\` except \`/healthz\`, \`/livez\`, \`/api/openapi.json\` and \`/api/docs\` (with its assets). Sessions
belong to the principal that created them; another principal's session answers exactly like one that does not exist. A session id a
client chooses itself (\`sessionId\` of \`/v1/chat/stream\`) is scoped per principal: another principal's id gives the caller a session of its own.

**Errors.** Every error is \`{"error": {"code", "message", "details"}}\` (schema \`ErrorBody\`); the code decides the status (each route lists the
codes it can answer). Unknown errors are answered \`INTERNAL\` without their text. A body that is not JSON is
\`INVALID_REQUEST\` whatever its content type; a route that does not exist is 404 \`NOT_FOUND\`. Bodies over STRAND_MAX_BODY_BYTES
(default 10 MiB) are answered 413 and the connection stays usable. Past STRAND_RATE_LIMIT requests per second per
principal: 429 with \`Retry-After\`. Requests Node cannot parse never reach a route: malformed HTTP is answered 400,
headers that are too large 413, a request not received in time 408 (body code \`INVALID_REQUEST\`), and the connection
is closed.`;

/** When each code is answered. */
export const ERROR_NOTES: Record<ErrorCode, string> = {
  INVALID_REQUEST: 'the request is malformed: a body that is not JSON, a wrong shape or type, a bad query value, or a command the session cannot take as sent.',
  UNKNOWN_MODEL: 'the model is not in the catalog of a configured provider, or its provider is not configured.',
  IMAGES_NOT_SUPPORTED: "a prompt has images and the session's model does not take images (its catalog entry says `supports.images: false`); the message names the model. Nothing was started.",
  JOB_NOT_FOUND: "no such job (or it is another principal's).",
  JOB_EXISTS: "the job id is taken by a job with a different spec (or by another principal's job): choose another id, or send the same spec to be answered the existing job.",
  JOB_NOT_FINISHED: 'the job is still running: its report comes when it ends (`GET /api/jobs/{id}` shows its progress).',
  JOB_ESCALATION_ANSWERED: 'the escalated call was decided already (by a person, its timeout or the job).',
  JOB_NOT_WAITING: 'the job is not waiting for a person to resume it (it runs on, or it ended).',
  JOB_SESSION: "the session is a job's: the job runs its turns and owns its settings, so a prompt or another command is refused (steer its running turn, answer its escalations, resume or cancel the job instead).",
  TURN_NOT_FOUND: "no such turn (or it is another principal's).",
  HOOK_NOT_FOUND: 'no hook of that name is defined.',
  HOOK_DELIVERY_REJECTED: "a signed delivery whose body lacks a value the hook's template needs (`details.placeholder`, `details.pointer`), or whose filled template is no job spec (`details.path`). No job was started.",
  NOT_FOUND: 'no route answers this method and path.',
  UNAUTHORIZED: 'tokens are configured and the request has no valid bearer token.',
  PERMISSION_DENIED: "the gateway's own user may not use a directory the request names (a `project_path` it cannot read or enter); the message names the path and what is missing.",
  SESSION_NOT_FOUND: "no such session (or it is another principal's).",
  INVALID_TOOL_CALL: 'no such tool call is waiting for an answer.',
  SESSION_BUSY: 'a turn (or a compaction) is running.',
  REVERT_CONFLICT: 'a revert or redo would overwrite files changed since by someone other than the agent; `details.paths` lists them. Nothing was changed; send `"force": true` to overwrite.',
  NOTHING_TO_REDO: 'there is no revert to redo: none was made, it was redone already, or the conversation moved on since (a new prompt drops the redo).',
  CHECKPOINT_NOT_FOUND: 'the session has no checkpoint at that turn or tool call, and no such turn.',
  PAYLOAD_TOO_LARGE: 'the body exceeds STRAND_MAX_BODY_BYTES.',
  RATE_LIMITED: 'too many requests from this principal (this address with auth off); wait `Retry-After` seconds.',
  INTERNAL: 'an unexpected failure (logged by the gateway; its text is not sent).',
  TRANSCRIPT_ERROR: 'the transcript could not be rendered or written (e.g. STRAND_TRANSCRIPTS_DIR is not a writable directory); the message says what failed, and for a delete that the session was kept.',
  LLM_API_ERROR: 'the model provider failed.',
  UNAVAILABLE: 'Temporal or the session store did not answer, or too many event streams are open; try again after `Retry-After` seconds.',
};

export const TAGS = [
  { name: 'sessions', description: 'Create, list, describe, fork, delete sessions; their stored conversation and sums.' },
  { name: 'agent', description: 'Turns: prompt, steer, interrupt.' },
  { name: 'approvals', description: 'Tool calls waiting for a person.' },
  { name: 'settings', description: 'Model, thinking level, compaction and the other settings of a session.' },
  { name: 'events', description: "A session's events as server-sent events." },
  { name: 'jobs', description: 'Unattended jobs (docs/jobs.md): start one with a spec, follow it, answer its escalated calls, cancel it, read its report.' },
  { name: 'turns', description: 'Turns running without (or with) a client, across sessions.' },
  { name: 'hooks', description: 'Signed web hooks that start unattended jobs (docs/jobs.md, "Triggers").' },
  { name: 'operator', description: "The operator view's history, recent failures and instances." },
  { name: 'transcripts', description: 'Conversations as documents.' },
  { name: 'ws-rpc', description: 'The HTTP side of the WebSocket RPC protocol (docs/websocket.md).' },
  { name: 'service', description: 'Health, this document and its viewer.' },
];
