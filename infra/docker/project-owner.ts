/** A user and group to run a service as, and why they were chosen (for the log). */
export interface RunAs {
  uid: number;
  gid: number;
  why: string;
}

/** What the choice needs to know about a directory. */
export type OwnerOf = (dir: string) => { uid: number; gid: number; isDirectory(): boolean };

/**
 * Whom the worker and the gateway run as inside their containers, so that what the agent writes in a
 * user's project belongs to that user, not to root (and the gateway's readability check of a
 * `project_path` is made as the same user):
 * - STRAND_RUN_AS=`uid[:gid]` when set (gid defaults to uid);
 * - else the owner of STRAND_PROJECTS_DIR, the host directory mounted at the same path in the container;
 * - undefined (run as is) when neither is set, or when the container does not start as root (a
 *   compose `user:` override already chose): a process that is not root cannot switch users.
 * A projects directory that is not there is an error naming it: tools would act on nothing a user sees.
 */
export function chooseRunAs(env: NodeJS.ProcessEnv, ownerOf: OwnerOf, currentUid: number): RunAs | undefined {
  const explicit = env.STRAND_RUN_AS?.trim();
  const projects = env.STRAND_PROJECTS_DIR?.trim();
  let chosen: RunAs | undefined;
  if (explicit) {
    const m = /^(\d+)(?::(\d+))?$/.exec(explicit);
    if (!m) throw new Error(`STRAND_RUN_AS=${explicit}: expected uid or uid:gid (numbers)`);
    chosen = { uid: Number(m[1]), gid: Number(m[2] ?? m[1]), why: 'STRAND_RUN_AS' };
  }
  if (projects) {
    let st: ReturnType<OwnerOf>;
    try {
      st = ownerOf(projects);
    } catch (err) {
      throw new Error(`STRAND_PROJECTS_DIR=${projects} is not mounted in this container (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): mount the host directory at the same path`);
    }
    if (!st.isDirectory()) throw new Error(`STRAND_PROJECTS_DIR=${projects} is not a directory`);
    chosen ??= { uid: st.uid, gid: st.gid, why: `owner of ${projects} (STRAND_PROJECTS_DIR)` };
  }
  if (!chosen) return undefined;
  if (currentUid !== 0) {
    if (explicit && chosen.uid !== currentUid) throw new Error(`STRAND_RUN_AS=${explicit}: the container runs as uid ${currentUid}, not root, and cannot switch users`);
    return undefined;
  }
  return chosen;
}

/** Directories listed in STRAND_OWNED_DIRS (colon-separated): given to the chosen user before the switch. */
export function ownedDirs(env: NodeJS.ProcessEnv): string[] {
  return (env.STRAND_OWNED_DIRS ?? '')
    .split(':')
    .map((d) => d.trim())
    .filter(Boolean);
}
