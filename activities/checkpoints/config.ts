import path from 'node:path';
import type { PruneBounds } from './prune';
import type { SnapshotBounds } from './workspace-snapshot';

export interface CheckpointConfig {
  dir: string;
  snapshot: SnapshotBounds;
  prune: PruneBounds;
  /** How often the worker prunes (also once at start). */
  pruneEveryMs: number;
}

const MiB = 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;

function positive(raw: string | undefined, fallback: number): number {
  const n = Number(raw?.trim() || NaN);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** The checkpoint settings from the environment (docs/configuration.md, docs/undo.md). */
export function checkpointConfigFromEnv(env: NodeJS.ProcessEnv = process.env): CheckpointConfig {
  return {
    dir: path.resolve(env.STRAND_CHECKPOINT_DIR?.trim() || path.join('.strand', 'data', 'checkpoints')),
    snapshot: {
      maxFiles: Math.floor(positive(env.STRAND_CHECKPOINT_SHELL_MAX_FILES, 10_000)),
      maxFileBytes: Math.floor(positive(env.STRAND_CHECKPOINT_MAX_FILE_BYTES, 4 * MiB)),
      maxTotalBytes: Math.floor(positive(env.STRAND_CHECKPOINT_SHELL_MAX_BYTES, 64 * MiB)),
    },
    prune: {
      maxAgeMs: positive(env.STRAND_CHECKPOINT_MAX_AGE_DAYS, 30) * DAY_MS,
      maxBytes: Math.floor(positive(env.STRAND_CHECKPOINT_MAX_BYTES, 2048 * MiB)),
      orphanGraceMs: 60 * 60 * 1000,
    },
    pruneEveryMs: 60 * 60 * 1000,
  };
}
