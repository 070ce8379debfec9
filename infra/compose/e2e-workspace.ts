import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The scripted models the e2e's turns play (activities/providers/scripts/README.md has the format). */
export const WRITE_SCRIPT = 'compose-write';
export const CRASH_SCRIPT = 'compose-crash';
export const FIRST_FILE = { path: 'hello-from-compose.txt', content: 'written by strand in a container\n' };
export const SECOND_FILE = { path: 'second.txt', content: 'written before the worker was killed\n' };
/** The second turn's answer: streamed slowly enough that the worker can be killed in the middle of it. */
export const SLOW_ANSWER = Array.from({ length: 24 }, (_, i) => `Part ${i + 1} of an answer that outlives a killed worker. `);

/**
 * A host directory playing a user's projects folder (STRAND_PROJECTS_DIR): a project for the turns,
 * and the scripts the worker reads (STRAND_SCRIPTS_DIR must be inside the mount). Everything belongs
 * to `uid:gid`: the invoking user, or, when that is root, a made-up user (so the e2e can tell "owned
 * by the user" from "owned by root").
 */
export interface Workspace {
  projects: string;
  project: string;
  scripts: string;
  uid: number;
  gid: number;
  remove(): void;
}

export function createWorkspace(): Workspace {
  const projects = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-compose-e2e-'));
  fs.chmodSync(projects, 0o755);
  const project = path.join(projects, 'demo-project');
  const scripts = path.join(projects, 'scripts');
  fs.mkdirSync(project);
  fs.mkdirSync(scripts);
  fs.writeFileSync(path.join(project, 'README.md'), '# demo project\n');
  const write = (name: string, steps: unknown[]) => fs.writeFileSync(path.join(scripts, `${name}.json`), JSON.stringify({ steps }, null, 2));
  write(WRITE_SCRIPT, [
    [{ type: 'text', text: 'I will write the file.' }, { type: 'tool_call', name: 'write_file', args: FIRST_FILE }],
    [{ type: 'text', text: 'Done: {{tool_result_first_line}}' }],
  ]);
  write(CRASH_SCRIPT, [
    [{ type: 'text', text: 'Writing a second file first.' }, { type: 'tool_call', name: 'write_file', args: SECOND_FILE }],
    SLOW_ANSWER.flatMap((text) => [{ type: 'text', text }, { type: 'delay', ms: 150 }]),
  ]);

  const root = process.getuid?.() === 0;
  const uid = root ? Number(process.env.STRAND_COMPOSE_E2E_UID ?? 4321) : process.getuid!();
  const gid = root ? Number(process.env.STRAND_COMPOSE_E2E_GID ?? uid) : process.getgid!();
  if (root) chownTree(projects, uid, gid);
  return { projects, project, scripts, uid, gid, remove: () => fs.rmSync(projects, { recursive: true, force: true }) };
}

function chownTree(p: string, uid: number, gid: number): void {
  fs.chownSync(p, uid, gid);
  if (fs.statSync(p).isDirectory()) for (const name of fs.readdirSync(p)) chownTree(path.join(p, name), uid, gid);
}
