import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ErrorCode as E } from '../../../contracts/errors';
import { approveBodySchema, rejectBodySchema } from '../../../contracts/http-api';
import { approvedSchema, pendingApprovalsSchema, rejectedSchema } from '../../../contracts/http-replies';
import type { SessionService } from '../sessions/session-service';
import { principalOf } from './auth-middleware';
import { openApiApp, sessionChange, sessionReply } from './openapi/route-kit';

const tags = ['approvals'];

const approve = createRoute({
  method: 'post',
  path: '/{id}/approve',
  operationId: 'approveToolCall',
  summary: 'Approve a waiting tool call',
  description: '`always: true` also approves every later call of the same tool in this session.',
  tags,
  ...sessionChange(approveBodySchema, approvedSchema, 'Approved.', E.INVALID_TOOL_CALL),
});

const reject = createRoute({
  method: 'post',
  path: '/{id}/reject',
  operationId: 'rejectToolCall',
  summary: 'Reject a waiting tool call',
  description: 'The reason is what the model reads.',
  tags,
  ...sessionChange(rejectBodySchema, rejectedSchema, 'Rejected.', E.INVALID_TOOL_CALL),
});

const pending = createRoute({
  method: 'get',
  path: '/{id}/approvals',
  operationId: 'pendingApprovals',
  summary: 'Tool calls waiting for a person',
  tags,
  ...sessionReply(pendingApprovalsSchema, 'Pending approvals, with their arguments.'),
});

/** `/api/sessions/{id}/approve|reject|approvals`: answers to tool calls that wait for a person. */
export function approvalsRoutes(deps: { sessions: SessionService }): OpenAPIHono {
  const app = openApiApp();
  const { sessions } = deps;

  app.openapi(approve, async (c) => {
    const body = c.req.valid('json');
    await (await sessions.open(c.req.valid('param').id, principalOf(c))).answerApproval({ tool_call_id: body.tool_call_id, decision: body.always ? 'always' : 'approve' });
    return c.json({ status: 'approved' as const, tool_call_id: body.tool_call_id }, 200);
  });

  app.openapi(reject, async (c) => {
    const body = c.req.valid('json');
    await (await sessions.open(c.req.valid('param').id, principalOf(c))).answerApproval({ tool_call_id: body.tool_call_id, decision: 'reject', ...(body.reason ? { reason: body.reason } : {}) });
    return c.json({ status: 'rejected' as const, tool_call_id: body.tool_call_id }, 200);
  });

  app.openapi(pending, async (c) => c.json({ approvals: await (await sessions.open(c.req.valid('param').id, principalOf(c))).pendingApprovals() }, 200));

  return app;
}
