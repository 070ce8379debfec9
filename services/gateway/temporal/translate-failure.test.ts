import { ErrorCode, StrandError } from '../../../contracts/errors';
import { translateFailure } from './translate-failure';

/** A gRPC status error as @grpc/grpc-js builds it: `code` on the error, the reason in the message. */
function grpcError(code: number, message: string, cause?: Error): Error {
  return Object.assign(new Error(message, cause ? { cause } : undefined), { code });
}

function codeOf(err: unknown): string | undefined {
  return err instanceof StrandError ? err.code : undefined;
}

describe('translateFailure: Temporal trouble is UNAVAILABLE, never INTERNAL', () => {
  it('an unreachable or slow server', () => {
    expect(codeOf(translateFailure(grpcError(14, '14 UNAVAILABLE: No connection established')))).toBe(ErrorCode.UNAVAILABLE);
    expect(codeOf(translateFailure(grpcError(4, '4 DEADLINE_EXCEEDED: Deadline exceeded after 5.001s')))).toBe(ErrorCode.UNAVAILABLE);
  });

  it('an overloaded server or one whose database fails', () => {
    const err = translateFailure(grpcError(13, 'GetWorkflowExecution: failed. Error: interrupted (9)'));
    expect(codeOf(err)).toBe(ErrorCode.UNAVAILABLE);
    expect((err as Error).message).toContain('interrupted (9)');
    expect(codeOf(translateFailure(grpcError(8, 'namespace rate limit exceeded')))).toBe(ErrorCode.UNAVAILABLE);
    expect(codeOf(translateFailure(grpcError(5, 'Namespace default is not found.')))).toBe(ErrorCode.UNAVAILABLE);
  });

  it('an update refused while the workflow task failed (seen under saturation)', () => {
    const err = translateFailure(grpcError(9, 'Unable to perform workflow execution update due to Workflow Task in failed state.'));
    expect(codeOf(err)).toBe(ErrorCode.UNAVAILABLE);
    expect((err as Error).message).toMatch(/workflow task failed/);
  });

  it('leaves what it does not know alone (the HTTP layer answers 500 and logs it)', () => {
    const odd = grpcError(9, 'some other precondition');
    expect(translateFailure(odd)).toBe(odd);
    const workflowMissing = grpcError(5, 'workflow not found for ID: session:x');
    expect(translateFailure(workflowMissing)).toBe(workflowMissing);
  });
});
