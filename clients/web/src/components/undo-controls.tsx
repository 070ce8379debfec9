import type { ChatSession } from '../chat-session';

/**
 * Undo on a turn (docs/undo.md): the files it and every later turn changed are put back and the
 * conversation goes back to before it (`POST …/revert {"turn_id"}`); the page then reads the
 * conversation again. Offered on each finished turn, between turns only, like `/undo` in strand chat.
 */
export function UndoButton({ chat, turn }: { chat: ChatSession; turn: string }) {
  return (
    <button type="button" class="link undo" disabled={chat.reverts.busy} title="Put back the files this turn (and later ones) changed, and take the conversation back to before it" onClick={() => void chat.reverts.undo(turn)}>
      Undo this turn
    </button>
  );
}

/** Redo, in the session bar after this page undid a turn: the files and the turns come back. */
export function RedoButton({ chat }: { chat: ChatSession }) {
  if (!chat.reverts.canRedo) return null;
  return (
    <button type="button" disabled={chat.reverts.busy || chat.running} title="Redo the last undo: its file changes and its turns come back" onClick={() => void chat.reverts.redo()}>
      Redo
    </button>
  );
}

/** A revert refused because someone else changed files since: which ones, and whether to overwrite them. */
export function RevertConflict({ chat }: { chat: ChatSession }) {
  const conflict = chat.reverts.conflict;
  if (!conflict) return null;
  return (
    <section class="problem revert-conflict" role="alert" aria-label="Revert conflict">
      <p>Changed since by someone else (not by the agent); undoing would overwrite them:</p>
      <ul aria-label="Changed files">
        {conflict.paths.map((p) => (
          <li key={p}>{p}</li>
        ))}
      </ul>
      <button type="button" disabled={chat.reverts.busy} onClick={() => void chat.reverts.overwrite()}>
        Overwrite
      </button>{' '}
      <button type="button" class="link" onClick={() => chat.reverts.dismissConflict()}>
        Cancel
      </button>
    </section>
  );
}
