import type { RevertRequest } from '../../../contracts/checkpoints';
import type { ChatView } from '../../terminal/chat-view';
import { noSuchTurnText, revertText } from '../../terminal/undo-text';
import { api, ApiError } from './api';

/** What a revert or redo came to: done (said as `strand chat` says it), refused with a reason, or a conflict to confirm. */
type RevertOutcome = { kind: 'done'; text: string } | { kind: 'refused'; text: string } | { kind: 'conflict'; paths: string[] };

/**
 * `POST …/revert` (docs/undo.md), with the refusals a person can act on turned into words: a turn
 * running (409 SESSION_BUSY), nothing to redo, files changed since by someone else (REVERT_CONFLICT,
 * with their paths). Anything else is thrown.
 */
async function sendRevert(sessionId: string, request: RevertRequest, turn?: string): Promise<RevertOutcome> {
  try {
    const reply = await api.revert(sessionId, request);
    return { kind: 'done', text: revertText(request.redo ? 'redone' : 'undone', turn, reply) };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.code === 'REVERT_CONFLICT') return { kind: 'conflict', paths: Array.isArray(err.details?.paths) ? err.details.paths.map(String) : [] };
    if (err.code === 'SESSION_BUSY') return { kind: 'refused', text: 'a turn is running: stop it or wait, then try again' };
    if (err.code === 'CHECKPOINT_NOT_FOUND' && turn !== undefined) return { kind: 'refused', text: noSuchTurnText(turn) };
    if (err.code === 'NOTHING_TO_REDO') return { kind: 'refused', text: 'nothing to redo (no undo since the last prompt)' };
    throw err;
  }
}

/** What the undo state needs of the open session. */
export interface RevertHost {
  readonly id: string;
  readonly view: ChatView;
  /** The page's line for a failed action. */
  problem: string | undefined;
  changed(): void;
  /** Reads the conversation anew (its active leaf moved). */
  reloadConversation(): Promise<void>;
}

/**
 * Undo and redo of one open session on the page: what the buttons do, and what they show — Redo
 * offered after this page's undo, a conflict waiting for Overwrite, a revert on its way.
 */
export class Reverts {
  /** This page undid a turn and the undo can be redone (until a redo or a new prompt). */
  canRedo = false;
  /** An undo refused because files were changed since by someone else: the paths, and the request to force. */
  conflict: { paths: string[]; request: RevertRequest; turn?: string | undefined } | undefined;
  /** A revert or redo is on its way. */
  busy = false;
  /**
   * What this page's last undo or redo did, shown under the conversation until the next prompt. Kept
   * here because the conversation may be read anew again after it (its file.changed events can arrive
   * after the reply), and each reading starts a fresh view.
   */
  line: string | undefined;

  constructor(private readonly host: RevertHost) {}

  /** Undoes a turn and every later one: their files put back, the conversation back to before it. */
  undo(turn: string): Promise<boolean> {
    return this.send({ turn_id: turn }, turn);
  }

  redo(): Promise<boolean> {
    return this.send({ redo: true });
  }

  /** The undo refused for a conflict, sent again to overwrite the files changed since. */
  overwrite(): Promise<boolean> {
    const conflict = this.conflict;
    this.conflict = undefined;
    return conflict ? this.send({ ...conflict.request, force: true }, conflict.turn) : Promise.resolve(false);
  }

  dismissConflict(): void {
    this.conflict = undefined;
    this.host.changed();
  }

  /** A turn started (a new prompt): it drops the revert a redo would restore (docs/undo.md), and the line about it. */
  prompted(): void {
    this.canRedo = false;
    this.line = undefined;
  }

  /** When done the conversation is read anew and a line says what changed; a refusal is the page's problem line. */
  private async send(request: RevertRequest, turn?: string): Promise<boolean> {
    const host = this.host;
    this.busy = true;
    this.conflict = undefined;
    host.problem = undefined;
    host.changed();
    try {
      const outcome = await sendRevert(host.id, request, turn);
      if (outcome.kind === 'conflict') this.conflict = { paths: outcome.paths, request, turn };
      if (outcome.kind === 'refused') host.problem = `${request.redo ? 'nothing was redone' : 'the turn was not undone'}: ${outcome.text}`;
      if (request.redo || outcome.kind === 'done') this.canRedo = !request.redo && outcome.kind === 'done';
      if (outcome.kind !== 'done') return false;
      this.line = outcome.text;
      await host.reloadConversation();
      return true;
    } catch (err) {
      host.problem = `${request.redo ? 'nothing was redone' : 'the turn was not undone'}: ${(err as Error).message}`;
      return false;
    } finally {
      this.busy = false;
      host.changed();
    }
  }
}
