import type { RevertReply } from './gateway-client';

// The lines an undo or redo prints, shared with the web page (web/src/revert.ts). Type imports only:
// the page must not load the gateway client, whose model catalog is parsed at load with zod, and zod
// probes `new Function` — a CSP violation on the page (script-src has no 'unsafe-eval').

/** What a revert or redo did, as one line: the files and what became of each. */
export function revertText(verb: 'undone' | 'redone', turn: string | undefined, reply: RevertReply): string {
  const what = turn ? `turn ${turn} ${verb}` : verb;
  const files = reply.files.map((f) => `${f.path}${f.operation === 'delete' ? ' (removed)' : ''}`);
  const skipped = reply.skipped?.length ? `; not restorable (beyond the snapshot bounds): ${reply.skipped.join(', ')}` : '';
  return `${what}: ${files.length > 0 ? `${verb === 'undone' ? 'put back' : 're-applied'} ${files.join(', ')}` : 'no files to change'}${skipped}`;
}

/** What undoing a turn with nothing left to undo says: the server finds no checkpoint and no entry before it. */
export function firstTurnText(turn: string): string {
  return `nothing more to undo: ${turn} is the session's first turn (nothing before it to go back to) and has no file changes left to put back`;
}
