import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chooseRunAs, ownedDirs, type RunAs } from './project-owner';

/**
 * Entrypoint of the worker and gateway containers, built like the services (infra/build/services-build.ts):
 *   node dist/services/run-as-project-owner.js dist/services/worker.js
 * (from source: node --import tsx infra/docker/run-as-project-owner.ts services/worker/main.ts)
 * It starts as root, gives the state directories (STRAND_OWNED_DIRS) to the user that owns the mounted
 * projects (project-owner.ts), switches to that user, and then loads the service in this very process:
 * the service stays the container's main process (signals, exit code, and a `kill -9` of that pid are
 * the service's own), and no shell or second node is kept around.
 */
async function main(): Promise<void> {
  const service = process.argv[2];
  if (!service) throw new Error('usage: run-as-project-owner.ts <service main.ts>');
  const runAs = chooseRunAs(process.env, (dir) => fs.statSync(dir), process.getuid?.() ?? -1);
  // A restarted container keeps its files: a ready file of the previous run would report health too early.
  const ready = process.env.STRAND_READY_FILE?.trim();
  if (ready) fs.rmSync(ready, { force: true });
  if (runAs) switchTo(runAs);
  useWritableHome();
  const who = runAs ? `uid ${runAs.uid} gid ${runAs.gid} (${runAs.why})` : `uid ${process.getuid?.()} (unchanged)`;
  console.log(`[entrypoint] ${service} runs as ${who}`);
  process.argv.splice(1, 1); // the service sees itself as argv[1], as if started directly
  // A built service is CommonJS: require() runs it at once, where import() would first scan the whole
  // bundle for its exports (as infra/stack/service-entry.ts does). Sources go through tsx's loader.
  if (service.endsWith('.js')) createRequire(__filename)(path.resolve(service));
  else await import(pathToFileURL(path.resolve(service)).href);
}

function switchTo(runAs: RunAs): void {
  for (const dir of ownedDirs(process.env)) {
    fs.mkdirSync(dir, { recursive: true });
    chownTree(dir, runAs.uid, runAs.gid);
  }
  // Groups first: once the uid is not root, neither groups nor gid may change any more.
  process.setgroups?.([runAs.gid]);
  process.setgid?.(runAs.gid);
  process.setuid?.(runAs.uid);
}

function chownTree(p: string, uid: number, gid: number): void {
  fs.lchownSync(p, uid, gid);
  if (!fs.lstatSync(p).isDirectory()) return;
  for (const name of fs.readdirSync(p)) chownTree(path.join(p, name), uid, gid);
}

/** A uid with no account has HOME=/ (not writable): tools, git and the SDKs get the temp dir instead. */
function useWritableHome(): void {
  try {
    fs.accessSync(process.env.HOME || '/', fs.constants.W_OK);
  } catch {
    process.env.HOME = os.tmpdir();
  }
}

main().catch((err: unknown) => {
  console.error(`[entrypoint] fatal: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
