import type { RevertReply } from './gateway-client';

// The lines an undo or redo prints, shared with the web page (clients/web/src/revert.ts). Type imports only:
// the page must not load the gateway client, whose model catalog is parsed at load with zod, and zod
// probes `new Function` — a CSP violation on the page (script-src has no 'unsafe-eval').

/** What a revert or redo did, as one line: the files and what became of each. */
export function revertText(verb: 'undone' | 'redone', turn: string | undefined, reply: RevertReply): string {
  const what = turn ? `turn ${turn} ${verb}` : verb;
  const files = reply.files.map((f) => `${f.path}${f.operation === 'delete' ? ' (removed)' : ''}`);
  const skipped = reply.skipped?.length ? `; not restorable (beyond the snapshot bounds): ${reply.skipped.join(', ')}` : '';
  return `${what}: ${files.length > 0 ? `${verb === 'undone' ? 'put back' : 're-applied'} ${files.join(', ')}` : 'no files to change'}${skipped}`;
}

/**
 * What undoing a turn the server does not know says (404 CHECKPOINT_NOT_FOUND: no checkpoint and no
 * such turn, e.g. another client undid it already). A first turn is undone like any other: the
 * conversation goes back to empty.
 */
export function noSuchTurnText(turn: string): string {
  return `nothing to undo: ${turn} is no longer in this conversation`;
}
