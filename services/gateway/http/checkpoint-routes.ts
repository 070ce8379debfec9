import type { OpenAPIHono } from '@hono/zod-openapi';
import { checkpointListReplySchema, revertRefusal, revertReplySchema, revertRequestSchema } from '../../../contracts/checkpoints';
import { ErrorCode as E, StrandError } from '../../../contracts/errors';
import type { SessionService } from '../sessions/session-service';
import { routeTable, serveRoutes, sessionChange, sessionOf, sessionReply } from './openapi/route-kit';

const routes = routeTable(['sessions'], {
  list: {
    get: '/{id}/checkpoints',
    id: 'listCheckpoints',
    summary: 'File checkpoints of the session, oldest first',
    description:
      'strand extension (docs/undo.md): one row per tool call that changed files (`write_file`, `edit_file`, `delete_file`, `shell_exec`): its entry id, turn, tool, the paths it changed, when, and whether a revert undid it. `notes` say what a shell snapshot could not cover.',
    ...sessionReply(checkpointListReplySchema, 'The checkpoints.'),
  },
  revert: {
    post: '/{id}/revert',
    id: 'revertCheckpoints',
    summary: 'Put files back as they were before a turn or a tool call, or redo the last revert',
    description:
      'strand extension (docs/undo.md). `{"turn_id"}` or `{"entry_id"}`: every file the agent changed from that point on is put back (created files removed, deleted ones restored), `file.changed` is announced for each, and the active leaf moves to just before that turn\'s user message (the undone entries stay in the tree as a branch). `{"redo": true}` re-applies the last revert, files and leaf; a new prompt since drops it. Only while idle (409 SESSION_BUSY). A file changed since by someone other than the agent answers 409 REVERT_CONFLICT with `details.paths` and changes nothing, unless `"force": true`.',
    ...sessionChange(revertRequestSchema, revertReplySchema, 'What was put back (or re-applied).', E.SESSION_BUSY, E.REVERT_CONFLICT, E.NOTHING_TO_REDO, E.CHECKPOINT_NOT_FOUND),
  },
});

/**
 * `GET /api/sessions/{id}/checkpoints` and `POST /api/sessions/{id}/revert`. The gateway owns no
 * files: both are commands to the session's workflow, which runs them as activities on the worker
 * that keeps the checkpoints and reaches the project.
 */
export function checkpointRoutes(deps: { sessions: SessionService }): OpenAPIHono {
  return serveRoutes(routes, {
    list: async (c) => {
      const result = await (await sessionOf(deps.sessions, c)).checkpointCommand({ op: 'list' });
      return c.json({ checkpoints: 'checkpoints' in result ? result.checkpoints : [] }, 200);
    },
    revert: async (c) => {
      const body = c.req.valid('json');
      const result = await (await sessionOf(deps.sessions, c)).checkpointCommand({ op: 'revert', ...body });
      if ('checkpoints' in result) throw new StrandError(E.INTERNAL, 'unexpected answer to a revert');
      const refused = revertRefusal(result, body.force === true);
      if (refused) throw refused;
      const { refused: _r, ...reply } = result;
      return c.json(reply, 200);
    },
  });
}
