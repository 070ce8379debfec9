import os from 'node:os';
import path from 'node:path';

/**
 * Where bootstrapped binaries live: `$STRAND_CACHE_DIR`, else `$XDG_CACHE_HOME/strand`, else
 * `~/.cache/strand`. Never inside the repository, so clones share one build and git stays clean.
 */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.STRAND_CACHE_DIR?.trim();
  if (explicit) return path.resolve(explicit);
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg) return path.join(path.resolve(xdg), 'strand');
  return path.join(os.homedir(), '.cache', 'strand');
}
