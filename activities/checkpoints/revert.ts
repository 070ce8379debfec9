import path from 'node:path';
import type { CheckpointFile, CheckpointRecord, FileState, RevertRequest, RevertResult } from '../../contracts/checkpoints';
import type { StoreClient } from '../../contracts/session-store/client';
import { OFF_BRANCH_SPENDING_PREFIX, spendingOfEntries } from '../../contracts/spending';
import type { AgentEventPublisher } from '../events/publisher';
import { resolveInWorkspace } from '../tools/paths';
import { checkpointOrder, turnNumber, type CheckpointStore, type RedoRecord } from './checkpoint-store';
import { currentDigest, restoreState, sameContent } from './file-state';

export type RevertStore = Pick<StoreClient, 'getMessage' | 'messages' | 'setActiveLeaf' | 'setMeta'>;

export interface RevertDeps {
  checkpoints: CheckpointStore;
  store: RevertStore;
  events: AgentEventPublisher;
  now?: () => number;
}

export interface RevertInput extends RevertRequest {
  session_id: string;
  project_path: string;
  /** Drawn once by the workflow: makes the events' ids, so a retried activity announces once. */
  revert_id: string;
}

/**
 * Puts files back as they were before a turn or a tool call (or, with `redo`, re-applies the last
 * revert), then moves the conversation's active leaf to just before that turn's user message. Runs on
 * the worker, which owns the checkpoints and reaches the workspace; the session workflow calls it only
 * while no turn runs. A file whose content differs from what the agent's last change left was changed
 * by someone else: nothing is done and its path is answered in `conflicts`, unless `force`.
 */
export function createRevertCheckpoints(deps: RevertDeps) {
  const now = deps.now ?? Date.now;
  return async function revertCheckpoints(input: RevertInput): Promise<RevertResult> {
    if (input.redo) return redo(input);
    // A retried activity finds its own redo record: it finishes what the first attempt began.
    const prior = await deps.checkpoints.redo(input.session_id);
    if (prior?.revert_id === input.revert_id) return finishRevert(input, prior);
    const all = await deps.checkpoints.list(input.session_id);
    const active = all.filter((c) => !c.reverted);
    const from = startOf(active, input);
    const undone = from === undefined ? [] : active.filter((c) => checkpointOrder(c, from) >= 0);
    const turn = input.turn_id ?? (input.entry_id ? (all.find((c) => c.entry_id === input.entry_id)?.turn_id ?? turnOfEntry(input.entry_id)) : undefined);
    const leafTarget = turn ? await leafBefore(input.session_id, turn) : undefined;
    if (undone.length === 0 && leafTarget === undefined) return { files: [], entry_ids: [], refused: 'no_checkpoint' };
    const files = combine(undone);
    const conflicts = await conflictsOf(input.project_path, files.map((f) => ({ path: f.path, expected: f.after, target: f.before })));
    if (conflicts.length > 0 && !input.force) return { files: [], entry_ids: [], conflicts };
    const leafNow = await activeLeaf(input.session_id);
    const record: RedoRecord = {
      revert_id: input.revert_id,
      entry_ids: undone.map((c) => c.entry_id),
      workspace: input.project_path,
      files,
      leaf_before: leafNow,
      // null: the turn was the session's first, the leaf goes to the root (an empty conversation).
      leaf_after: leafTarget === undefined ? leafNow : leafTarget,
    };
    await deps.checkpoints.setRedo(input.session_id, record);
    const result = await finishRevert(input, record);
    return { ...result, ...(conflicts.length > 0 ? { conflicts } : {}) };
  };

  /** Files back, checkpoints marked undone, the leaf moved: each step safe to repeat. */
  async function finishRevert(input: RevertInput, record: RedoRecord): Promise<RevertResult> {
    const applied = await apply(input, record.files.map((f) => ({ path: f.path, to: f.before })));
    await deps.checkpoints.setReverted(input.session_id, record.entry_ids, true);
    if (record.leaf_after !== record.leaf_before) {
      // The undone turns leave the branch budgets are summed from; what they spent stays spent.
      if ((await activeLeaf(input.session_id)) === record.leaf_before) await keepSpending(input.session_id, record);
      await deps.store.setActiveLeaf({ session_id: input.session_id, entry_id: record.leaf_after });
      await moved(input, 'revert', record.leaf_after);
    }
    return { ...applied, entry_ids: record.entry_ids, active_leaf: record.leaf_after };
  }

  async function redo(input: RevertInput): Promise<RevertResult> {
    const record = await deps.checkpoints.redo(input.session_id);
    // A new entry since the revert (a prompt, a command) has moved the leaf: the redo is gone.
    if (!record || (await activeLeaf(input.session_id)) !== record.leaf_after) {
      if (record) await deps.checkpoints.setRedo(input.session_id, undefined);
      return { files: [], entry_ids: [], refused: 'nothing_to_redo' };
    }
    const conflicts = await conflictsOf(input.project_path, record.files.map((f) => ({ path: f.path, expected: f.before, target: f.after })));
    if (conflicts.length > 0 && !input.force) return { files: [], entry_ids: [], conflicts };
    const applied = await apply(input, record.files.map((f) => ({ path: f.path, to: f.after })));
    await deps.checkpoints.setReverted(input.session_id, record.entry_ids, false);
    if (record.leaf_before !== record.leaf_after) {
      await deps.store.setActiveLeaf({ session_id: input.session_id, entry_id: record.leaf_before });
      // Back on the branch: counted from there again, not twice.
      await deps.store.setMeta({ session_id: input.session_id, metadata_patch: { [`${OFF_BRANCH_SPENDING_PREFIX}${record.revert_id}`]: null } });
      await moved(input, 'redo', record.leaf_before);
    }
    await deps.checkpoints.setRedo(input.session_id, undefined);
    return { ...applied, entry_ids: record.entry_ids, active_leaf: record.leaf_before, ...(conflicts.length > 0 ? { conflicts } : {}) };
  }

  async function apply(input: RevertInput, targets: Array<{ path: string; to: FileState }>): Promise<Pick<RevertResult, 'files' | 'skipped'>> {
    const files: RevertResult['files'] = [];
    const skipped: string[] = [];
    for (const t of targets) {
      const abs = await locate(input.project_path, t.path);
      if (!abs || t.to.state === 'unsaved') {
        skipped.push(t.path);
        continue;
      }
      files.push({ path: t.path, operation: await restoreState(abs, t.to, deps.checkpoints.blobs) });
    }
    const timestamp = now();
    if (files.length > 0) {
      await deps.events.publish(
        input.session_id,
        files.map((f, i) => ({ id: `revert:${input.revert_id}:file${i}`, event: { type: 'file.changed', path: f.path, operation: f.operation, timestamp } })),
      );
    }
    return { files, ...(skipped.length > 0 ? { skipped } : {}) };
  }

  /** Tells every client the conversation moved (its id per revert, so a retried activity announces it once). */
  async function moved(input: RevertInput, reason: 'revert' | 'redo', leaf: string | null): Promise<void> {
    await deps.events.publish(input.session_id, [{ id: `revert:${input.revert_id}:moved`, event: { type: 'conversation.moved', reason, active_leaf: leaf } }]);
  }

  /** Records what the entries after `leaf_after` on the active path spent, under the revert's id. */
  async function keepSpending(sessionId: string, record: RedoRecord): Promise<void> {
    const path: Parameters<typeof spendingOfEntries>[0][number][] = [];
    let cursor: string | undefined;
    let after = record.leaf_after === null; // From the root: the whole active path is undone.
    do {
      const page = await deps.store.messages({ session_id: sessionId, include_custom: true, limit: 500, ...(cursor ? { cursor } : {}) });
      if (!page) return;
      for (const item of page.messages) {
        if (after) path.push(item);
        if (item.entry_id === record.leaf_after) after = true;
      }
      cursor = page.next_cursor;
    } while (cursor);
    await deps.store.setMeta({ session_id: sessionId, metadata_patch: { [`${OFF_BRANCH_SPENDING_PREFIX}${record.revert_id}`]: spendingOfEntries(path) } });
  }

  /** The entry the conversation's active path ends at (null: an empty session). */
  async function activeLeaf(sessionId: string): Promise<string | null> {
    let leaf: string | null = null;
    let cursor: string | undefined;
    do {
      const page = await deps.store.messages({ session_id: sessionId, include_custom: true, limit: 500, ...(cursor ? { cursor } : {}) });
      if (!page) return null;
      leaf = page.messages.at(-1)?.entry_id ?? leaf;
      cursor = page.next_cursor;
    } while (cursor);
    return leaf;
  }

  /**
   * The parent of the turn's user message: where the conversation stood before the turn (null: the
   * root, the turn was the first); undefined when the session has no such turn.
   */
  async function leafBefore(sessionId: string, turn: string): Promise<string | null | undefined> {
    const got = await deps.store.getMessage({ session_id: sessionId, entry_id: `${turn}:user` });
    return got ? got.entry.parent_id : undefined;
  }
}

/** The first checkpoint a revert undoes: the turn's first, or the named call's. */
function startOf(active: CheckpointRecord[], input: RevertRequest): CheckpointRecord | undefined {
  if (input.entry_id) {
    const exact = active.find((c) => c.entry_id === input.entry_id);
    if (exact) return exact;
    // A call that changed nothing has no checkpoint: everything after it in its turn counts.
    const t = turnNumber(turnOfEntry(input.entry_id) ?? '');
    return active.find((c) => turnNumber(c.turn_id) > t || (turnNumber(c.turn_id) === t && c.entry_id > input.entry_id!));
  }
  const t = turnNumber(input.turn_id ?? '');
  return active.find((c) => turnNumber(c.turn_id) >= t);
}

function turnOfEntry(entryId: string): string | undefined {
  return /^(t\d+):/.exec(entryId)?.[1];
}

/** Per path: the state before the first undone call and after the last one. */
function combine(undone: CheckpointRecord[]): CheckpointFile[] {
  const byPath = new Map<string, CheckpointFile>();
  for (const c of undone) {
    for (const f of c.files) {
      const seen = byPath.get(f.path);
      byPath.set(f.path, seen ? { path: f.path, before: seen.before, after: f.after } : { ...f });
    }
  }
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Paths whose content now is neither what the agent's last change (or the revert) left nor already
 * what the revert would make it: someone else changed them since.
 */
async function conflictsOf(workspace: string, files: Array<{ path: string; expected: FileState; target: FileState }>): Promise<string[]> {
  const out: string[] = [];
  for (const f of files) {
    if (f.expected.state === 'unsaved') continue;
    const abs = await locate(workspace, f.path);
    const now = abs ? await currentDigest(abs) : undefined;
    if (!now || !(sameContent(now, f.expected) || sameContent(now, f.target))) out.push(f.path);
  }
  return out;
}

/** The path inside the workspace (its parent resolved, never through a link out of it). */
async function locate(workspace: string, rel: string): Promise<string | undefined> {
  const parent = await resolveInWorkspace(workspace, path.posix.dirname(rel));
  return parent.ok ? path.join(parent.path.abs, path.posix.basename(rel)) : undefined;
}
