import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The `strand` command of this clone (package.json "bin"). */
export const CLONE_COMMAND = path.resolve(__dirname, '..', '..', 'bin', 'strand.cjs');

export interface InstallOptions {
  /** Where the link goes (default: $XDG_BIN_HOME, else ~/.local/bin: a user's own, no root needed). */
  binDir?: string;
  /** Replace a `strand` there that is not this clone's. */
  force?: boolean;
  /** What the link points at (this clone's bin/strand.cjs; tests name another). */
  target?: string;
  env?: NodeJS.ProcessEnv;
}

/** What was done, in sentences for the person who ran it. */
export interface InstallReport {
  link: string;
  lines: string[];
}

export function defaultBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_BIN_HOME?.trim() || path.join(env.HOME?.trim() || os.homedir(), '.local', 'bin');
}

/**
 * Links `strand` in a folder of the user's own to this clone's command. Not `npm link` or
 * `npm install -g`: those write into npm's global prefix (root-owned on many systems) and would
 * install a copy, where a link keeps following the clone as it is pulled. Never replaces a `strand`
 * that is not a link to this clone unless told to (another installation may be in use).
 */
export function installCli(opts: InstallOptions = {}): InstallReport {
  const env = opts.env ?? process.env;
  const binDir = path.resolve(opts.binDir ?? defaultBinDir(env));
  const target = opts.target ?? CLONE_COMMAND;
  const link = path.join(binDir, 'strand');
  fs.mkdirSync(binDir, { recursive: true });
  const existing = fs.lstatSync(link, { throwIfNoEntry: false });
  const lines: string[] = [];
  if (existing) {
    const pointsAt = existing.isSymbolicLink() ? path.resolve(binDir, fs.readlinkSync(link)) : undefined;
    if (pointsAt === target) lines.push(`${link} already runs this clone's strand (${target})`);
    else if (!opts.force) {
      const what = pointsAt ? `a link to ${pointsAt}` : 'a file that is not a link';
      throw new Error(`${link} exists and is ${what}: not replaced. Run \`npm run install-cli -- --force\` to replace it, or --dir DIR to install elsewhere`);
    } else {
      fs.rmSync(link);
      lines.push(`replaced ${link} (was ${pointsAt ? `a link to ${pointsAt}` : 'a file'})`);
    }
  }
  if (!lines.some((l) => l.startsWith(link))) {
    fs.symlinkSync(target, link);
    lines.push(`${link} -> ${target}`);
  }
  const onPath = (env.PATH ?? '').split(path.delimiter).some((d) => d && path.resolve(d) === binDir);
  lines.push(
    onPath
      ? 'strand is on your PATH: run `strand chat` in any project folder (with the stack running: `npm start` here).'
      : `${binDir} is not on your PATH: add \`export PATH="${binDir}:$PATH"\` to your shell's profile, then run \`strand chat\` in any project folder.`,
  );
  return { link, lines };
}

/** Removes the link if it is this clone's; anything else there is left alone and named. */
export function uninstallCli(opts: Pick<InstallOptions, 'binDir' | 'target' | 'env'> = {}): InstallReport {
  const binDir = path.resolve(opts.binDir ?? defaultBinDir(opts.env ?? process.env));
  const target = opts.target ?? CLONE_COMMAND;
  const link = path.join(binDir, 'strand');
  const existing = fs.lstatSync(link, { throwIfNoEntry: false });
  if (!existing) return { link, lines: [`${link} does not exist: nothing to remove`] };
  if (!existing.isSymbolicLink() || path.resolve(binDir, fs.readlinkSync(link)) !== target) throw new Error(`${link} is not this clone's strand: left alone`);
  fs.rmSync(link);
  return { link, lines: [`removed ${link}`] };
}
