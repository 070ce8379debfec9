import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { FailureType, providerKindOf } from '../../../contracts/failures';

/** gRPC statuses that mean "the server is not there": DEADLINE_EXCEEDED (4), UNAVAILABLE (14). */
const GRPC_UNREACHABLE = new Set([4, 14]);
/** gRPC statuses that mean "the server is there but cannot do it now": RESOURCE_EXHAUSTED (8), INTERNAL (13). */
const GRPC_STRUGGLING = new Set([8, 13]);
const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

/**
 * Maps validators' failures and Temporal's own errors onto strand error codes. Whatever is Temporal's
 * trouble (unreachable, overloaded, its database failing, the session workflow's task failing on a
 * worker) is UNAVAILABLE, an infrastructure fault the client may retry — never INTERNAL, which would
 * read as strand's bug, and never the model's fault.
 */
export function translateFailure(err: unknown): unknown {
  if (err instanceof StrandError) return err;
  const cause = err instanceof WorkflowUpdateFailedError ? err.cause : undefined;
  if (cause instanceof ApplicationFailure) {
    if (cause.type === FailureType.SESSION_BUSY) return new StrandError(ErrorCode.SESSION_BUSY, cause.message);
    if (cause.type === FailureType.INVALID_COMMAND) return new StrandError(ErrorCode.INVALID_REQUEST, cause.message);
    if (cause.type === FailureType.SESSION_NOT_FOUND) return new StrandError(ErrorCode.SESSION_NOT_FOUND, cause.message);
    if (cause.type === FailureType.UNKNOWN_TOOL_CALL) return new StrandError(ErrorCode.INVALID_TOOL_CALL, cause.message);
  }
  const chain = causes(err);
  // A model call the session made itself (compaction) failed: the provider's failure, as 502.
  const provider = chain.find((e) => e instanceof ApplicationFailure && providerKindOf(e.type) !== undefined);
  if (provider) return new StrandError(ErrorCode.LLM_API_ERROR, provider.message, { kind: providerKindOf((provider as ApplicationFailure).type) }, { cause: err });
  const unreachable = chain.find((e) => GRPC_UNREACHABLE.has(grpcCode(e)!) || /UNAVAILABLE|ECONNREFUSED|DEADLINE_EXCEEDED|deadline/i.test(e.message));
  if (unreachable) return new StrandError(ErrorCode.UNAVAILABLE, `Temporal did not answer: ${unreachable.message}`, undefined, { cause: err });
  const struggling = chain.find((e) => GRPC_STRUGGLING.has(grpcCode(e)!));
  if (struggling) return new StrandError(ErrorCode.UNAVAILABLE, `Temporal could not do it now: ${struggling.message}`, undefined, { cause: err });
  // The server refuses an update while the workflow's last task failed on a worker (a worker crash,
  // an SDK fault under load); Temporal retries that task, so the command can succeed a moment later.
  if (isWorkflowTaskFailure(err)) return new StrandError(ErrorCode.UNAVAILABLE, `the session's workflow could not take the command now (its last workflow task failed; Temporal retries it): ${messagesOf(err)}`, undefined, { cause: err });
  // "Namespace default is not found" from a server whose database fails (or was never set up).
  const noNamespace = chain.find((e) => grpcCode(e) === GRPC_NOT_FOUND && /namespace/i.test(e.message));
  if (noNamespace) return new StrandError(ErrorCode.UNAVAILABLE, `Temporal does not find its namespace: ${noNamespace.message}`, undefined, { cause: err });
  return err;
}

/** The call ran out of its deadline (gRPC DEADLINE_EXCEEDED): the server may still have taken it. */
export function isDeadlineExceeded(err: unknown): boolean {
  return causes(err).some((e) => grpcCode(e) === 4 || /DEADLINE_EXCEEDED|deadline exceeded/i.test(e.message));
}

/**
 * The server refused a command because the workflow's last task failed on a worker (a worker crash,
 * an SDK fault under load). Temporal retries that task, so the same command, under the same update
 * id (deduplicated by the server and the workflow), can succeed a moment later (patient-update.ts).
 */
export function isWorkflowTaskFailure(err: unknown): boolean {
  return causes(err).some((e) => grpcCode(e) === GRPC_FAILED_PRECONDITION) && /workflow task/i.test(messagesOf(err));
}

function grpcCode(e: Error): number | undefined {
  const code = (e as { code?: unknown }).code;
  return typeof code === 'number' ? code : undefined;
}

/** The error and its causes, outermost first. */
function causes(err: unknown): Error[] {
  const out: Error[] = [];
  for (let e: unknown = err; e instanceof Error && out.length < 8; e = (e as { cause?: unknown }).cause) out.push(e);
  return out;
}

/** Every message of the chain (Temporal puts the reason on the wrapper, the status on the cause). */
function messagesOf(err: unknown): string {
  return causes(err).map((e) => e.message).join(': ');
}
