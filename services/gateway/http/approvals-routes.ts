import type { OpenAPIHono } from '@hono/zod-openapi';
import { ErrorCode as E } from '../../../contracts/errors';
import { approveBodySchema, rejectBodySchema } from '../../../contracts/http-api';
import { approvedSchema, pendingApprovalsSchema, rejectedSchema } from '../../../contracts/http-replies';
import type { SessionService } from '../sessions/session-service';
import { routeTable, serveRoutes, sessionChange, sessionOf, sessionReply } from './openapi/route-kit';

const routes = routeTable(['approvals'], {
  approve: {
    post: '/{id}/approve',
    id: 'approveToolCall',
    summary: 'Approve a waiting tool call',
    description: '`always: true` also approves every later call of the same tool in this session.',
    ...sessionChange(approveBodySchema, approvedSchema, 'Approved.', E.INVALID_TOOL_CALL),
  },
  reject: {
    post: '/{id}/reject',
    id: 'rejectToolCall',
    summary: 'Reject a waiting tool call',
    description: 'The reason is what the model reads.',
    ...sessionChange(rejectBodySchema, rejectedSchema, 'Rejected.', E.INVALID_TOOL_CALL),
  },
  pending: { get: '/{id}/approvals', id: 'pendingApprovals', summary: 'Tool calls waiting for a person', ...sessionReply(pendingApprovalsSchema, 'Pending approvals, with their arguments.') },
});

/** `/api/sessions/{id}/approve|reject|approvals`: answers to tool calls that wait for a person. */
export function approvalsRoutes(deps: { sessions: SessionService }): OpenAPIHono {
  const { sessions } = deps;
  return serveRoutes(routes, {
    approve: async (c) => {
      const body = c.req.valid('json');
      await (await sessionOf(sessions, c)).answerApproval({ tool_call_id: body.tool_call_id, decision: body.always ? 'always' : 'approve' });
      return c.json({ status: 'approved' as const, tool_call_id: body.tool_call_id }, 200);
    },
    reject: async (c) => {
      const body = c.req.valid('json');
      await (await sessionOf(sessions, c)).answerApproval({ tool_call_id: body.tool_call_id, decision: 'reject', ...(body.reason ? { reason: body.reason } : {}) });
      return c.json({ status: 'rejected' as const, tool_call_id: body.tool_call_id }, 200);
    },
    pending: async (c) => c.json({ approvals: await (await sessionOf(sessions, c)).pendingApprovals() }, 200),
  });
}
