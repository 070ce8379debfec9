import { Hono } from 'hono';
import { approveBodySchema, rejectBodySchema } from '../../../contracts/http-api';
import type { SessionService } from '../sessions/session-service';
import { principalOf } from './auth-middleware';
import { parseJsonBody } from './errors';

/** `/api/sessions/{id}/approve|reject|approvals`: answers to tool calls that wait for a person. */
export function approvalsRoutes(deps: { sessions: SessionService }): Hono {
  const app = new Hono();
  const { sessions } = deps;

  app.post('/:id/approve', async (c) => {
    const body = await parseJsonBody(c, approveBodySchema);
    await sessions.answerApproval(c.req.param('id'), { tool_call_id: body.tool_call_id, decision: body.always ? 'always' : 'approve' }, principalOf(c));
    return c.json({ status: 'approved', tool_call_id: body.tool_call_id });
  });

  app.post('/:id/reject', async (c) => {
    const body = await parseJsonBody(c, rejectBodySchema);
    await sessions.answerApproval(c.req.param('id'), { tool_call_id: body.tool_call_id, decision: 'reject', ...(body.reason ? { reason: body.reason } : {}) }, principalOf(c));
    return c.json({ status: 'rejected', tool_call_id: body.tool_call_id });
  });

  app.get('/:id/approvals', async (c) => c.json({ approvals: await sessions.pendingApprovals(c.req.param('id'), principalOf(c)) }));

  return app;
}
