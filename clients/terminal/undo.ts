import type { RevertRequest } from '../../contracts/checkpoints';
import { turnOfEntry } from './chat-blocks';
import type { ChatController } from './chat-controller';
import { ApiError } from '../core/api-client';
import type { RevertReply, StoredMessageItem } from './gateway-client';
import { noSuchTurnText, revertText } from './undo-text';

export { revertText } from './undo-text';

/** The last turn of the conversation's active branch (the one whose prompt is latest), if any. */
export function lastTurnOf(items: StoredMessageItem[]): string | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const entryId = items[i]!.entry_id;
    const turn = turnOfEntry(entryId);
    if (turn !== undefined && entryId === `${turn}:user`) return turn;
  }
  return undefined;
}

/** The conflict a 409 REVERT_CONFLICT names, or undefined for any other failure. */
export function conflictPaths(err: unknown): string[] | undefined {
  if (!(err instanceof ApiError) || err.code !== 'REVERT_CONFLICT') return undefined;
  const paths = err.details?.paths;
  return Array.isArray(paths) ? paths.map(String) : [];
}

/**
 * Sends a revert (or redo); on success says what changed and re-reads the conversation (its active
 * leaf moved). A conflict asks "Overwrite? y/n" and, on y, sends the same request forced. Refusals a
 * person can act on are said plainly instead of thrown.
 */
async function sendRevert(chat: ChatController, id: string, request: RevertRequest, turn: string | undefined): Promise<void> {
  let reply: RevertReply;
  try {
    reply = await chat.client.revert(id, request);
  } catch (err) {
    const paths = conflictPaths(err);
    if (paths && !request.force) {
      chat.pick({
        title: `Changed since by someone else: ${paths.join(', ') || '(unnamed)'}. Overwrite? y/n`,
        items: [
          { label: 'y  overwrite them', value: 'y' },
          { label: 'n  leave everything as it is', value: 'n' },
        ],
        keys: { y: 'y', n: 'n' },
        choose: (answer) => (answer === 'y' ? chat.attempt(request.redo ? '/redo' : '/undo', () => sendRevert(chat, id, { ...request, force: true }, turn)) : chat.say('info', 'nothing was changed')),
      });
      return;
    }
    if (err instanceof ApiError && err.code === 'SESSION_BUSY') return chat.say('warning', 'a turn is running: stop it (Esc) or wait, then try again');
    if (err instanceof ApiError && err.code === 'CHECKPOINT_NOT_FOUND' && turn !== undefined) return chat.say('warning', noSuchTurnText(turn));
    if (err instanceof ApiError && err.code === 'NOTHING_TO_REDO') return chat.say('warning', 'nothing to redo (no revert since the last prompt)');
    throw err;
  }
  // Read again first: the reload starts a fresh view, and the line below belongs on it.
  await chat.reload();
  chat.say('info', revertText(request.redo ? 'redone' : 'undone', turn, reply));
}

/**
 * `/undo [turn-id|entry-id] [force]`: the last turn of the conversation (or the one named) undone — its
 * file changes put back and the conversation moved to before it.
 */
export async function undoLastTurn(chat: ChatController, id: string, point?: string, force = false): Promise<void> {
  if (chat.view.turn !== undefined) return chat.say('warning', 'a turn is running: stop it (Esc) or wait, then try again');
  const forced = force ? { force } : {};
  if (point && !/^t\d+$/.test(point)) return sendRevert(chat, id, { entry_id: point, ...forced }, undefined);
  const turn = point ?? lastTurnOf(await chat.client.messages(id));
  if (!turn) return chat.say('warning', 'nothing to undo: no turn in this conversation');
  return sendRevert(chat, id, { turn_id: turn, ...forced }, turn);
}

/** `/redo`: the last revert re-applied (its files and its turns back in the conversation). */
export function redoLastRevert(chat: ChatController, id: string, force = false): Promise<void> {
  return sendRevert(chat, id, { redo: true, ...(force ? { force } : {}) }, undefined);
}
