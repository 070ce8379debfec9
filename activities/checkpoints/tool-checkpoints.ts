import path from 'node:path';
import type { CheckpointFile, CheckpointTool } from '../../contracts/checkpoints';
import { checkpointToolSchema } from '../../contracts/checkpoints';
import type { ToolOutcome } from '../tool-calls/ledger';
import { resolveInWorkspace, workspaceRoot } from '../tools/paths';
import type { CheckpointStore, PendingCheckpoint } from './checkpoint-store';
import { captureState, sameContent } from './file-state';
import { diffWorkspace, snapshotWorkspace, type KnownFiles, type SnapshotBounds } from './workspace-snapshot';

const CHECKPOINT_TOOLS: ReadonlySet<string> = new Set(checkpointToolSchema.options);

/** Workspaces whose last snapshot is remembered (so the next one reads only what changed). */
const KNOWN_WORKSPACES = 16;

export interface ToolCallRef {
  session_id: string;
  turn_id: string;
  /** The tool call's entry id (`t3:s0:tool:<call>`): what the checkpoint is keyed by. */
  entry_id: string;
  tool: string;
  params: unknown;
  workspace: string;
}

/**
 * The tool activity's side of checkpoints: `begin` before a changing tool runs (records the
 * before-state once), `finish` after it (records what changed, with the after-state for redo and
 * conflict checks; for shell_exec adds the changes it found as file_changes and says what the
 * snapshot could not cover). A checkpoint that cannot be taken never stops the tool: the result
 * says that this call cannot be undone.
 */
export class ToolCheckpoints {
  /** The last snapshot of each recent workspace, by real path (most recent last). */
  private readonly known = new Map<string, KnownFiles>();

  constructor(
    readonly store: CheckpointStore,
    readonly bounds: SnapshotBounds,
    private readonly now: () => number = Date.now,
  ) {}

  static covers(tool: string): tool is CheckpointTool {
    // A set lookup, not a zod parse: asked twice for every tool call (begin, finish), of a name we hold.
    return CHECKPOINT_TOOLS.has(tool);
  }

  async begin(call: ToolCallRef, signal: AbortSignal): Promise<{ failed?: string }> {
    if (!ToolCheckpoints.covers(call.tool)) return {};
    try {
      const existing = await this.store.pending(call.session_id, call.entry_id);
      if (existing) return {};
      const base = { entry_id: call.entry_id, turn_id: call.turn_id, tool: call.tool, time: this.now() };
      const ws = await workspaceRoot(call.workspace);
      if (!ws.ok) return {};
      let pending: PendingCheckpoint;
      if (call.tool === 'shell_exec') {
        const snapshot = await snapshotWorkspace(ws.root, this.store.blobs, this.bounds, signal, this.known.get(ws.root));
        this.remember(ws.root, { files: snapshot.files, takenAt: base.time });
        pending = { ...base, workspace: ws.root, snapshot };
      } else {
        const target = await targetOf(ws.root, call.tool, call.params);
        if (!target) return {};
        pending = { ...base, workspace: ws.root, paths: { [target.rel]: await captureState(target.abs, this.store.blobs) } };
      }
      await this.store.recordBefore(call.session_id, pending);
      return {};
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      return { failed: (err as Error).message };
    }
  }

  private remember(root: string, known: KnownFiles): void {
    this.known.delete(root);
    this.known.set(root, known);
    if (this.known.size > KNOWN_WORKSPACES) this.known.delete(this.known.keys().next().value!);
  }

  /** Completes the checkpoint from its recorded before-state and the workspace now. */
  async finish(call: ToolCallRef, outcome: ToolOutcome, began: { failed?: string }, signal: AbortSignal): Promise<ToolOutcome> {
    if (!ToolCheckpoints.covers(call.tool)) return outcome;
    if (began.failed) return withNote(outcome, `[No checkpoint could be taken (${began.failed}): this call cannot be undone.]`);
    try {
      const pending = await this.store.pending(call.session_id, call.entry_id);
      if (!pending) return outcome;
      const files = await this.changesSince(pending, signal);
      const notes = pending.snapshot?.notes ?? [];
      const unsaved = files.filter((f) => f.before.state === 'unsaved').map((f) => f.path);
      if (unsaved.length > 0) notes.push(`Changed but not undoable (beyond the checkpoint bounds): ${unsaved.join(', ')}.`);
      await this.store.saveDone(call.session_id, {
        entry_id: pending.entry_id,
        turn_id: pending.turn_id,
        tool: pending.tool,
        time: pending.time,
        files,
        ...(notes.length > 0 && files.length > 0 ? { notes } : {}),
      });
      if (pending.tool !== 'shell_exec') return outcome;
      const changes = files.map((f) => ({ path: f.path, operation: f.after.state === 'absent' ? ('delete' as const) : f.before.state === 'absent' ? ('write' as const) : ('edit' as const) }));
      const shown = changes.length > 0 ? { ...outcome, file_changes: [...(outcome.file_changes ?? []), ...changes] } : outcome;
      return notes.length > 0 ? withNote(shown, `[${notes.join(' ')}]`) : shown;
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      return withNote(outcome, `[The checkpoint could not be completed (${(err as Error).message}): this call may not be undoable.]`);
    }
  }

  private async changesSince(pending: PendingCheckpoint, signal: AbortSignal): Promise<CheckpointFile[]> {
    if (pending.snapshot) return diffWorkspace(pending.workspace, pending.snapshot, this.store.blobs, this.bounds, signal, pending.time);
    const files: CheckpointFile[] = [];
    for (const [rel, before] of Object.entries(pending.paths ?? {})) {
      const after = await captureState(path.join(pending.workspace, rel), this.store.blobs);
      if (!sameContent(before, after)) files.push({ path: rel, before, after });
    }
    return files;
  }
}

function withNote(outcome: ToolOutcome, note: string): ToolOutcome {
  return { ...outcome, content: `${outcome.content}\n${note}` };
}

/** The file a write/edit/delete names, resolved as the tool resolves it (delete: the link itself). */
async function targetOf(root: string, tool: CheckpointTool, params: unknown): Promise<{ abs: string; rel: string } | undefined> {
  const p = typeof params === 'object' && params !== null && 'path' in params && typeof params.path === 'string' ? params.path : undefined;
  if (!p) return undefined;
  if (tool === 'delete_file') {
    const trimmed = p.replace(/[\\/]+$/, '');
    const name = path.basename(trimmed);
    if (!name || name === '.' || name === '..') return undefined;
    const parent = await resolveInWorkspace(root, path.dirname(trimmed));
    if (!parent.ok) return undefined;
    return { abs: path.join(parent.path.abs, name), rel: parent.path.rel === '.' ? name : `${parent.path.rel}/${name}` };
  }
  const resolved = await resolveInWorkspace(root, p);
  if (!resolved.ok || resolved.path.abs === root) return undefined;
  return { abs: resolved.path.abs, rel: resolved.path.rel };
}
