import fs from 'node:fs';
import path from 'node:path';
import { outputOf, runLogged, say, which } from './run-command';

export interface GoBinarySpec {
  /** Human name, also the cache directory's prefix. */
  name: string;
  /** The binary's file name. */
  binary: string;
  module: string;
  version: string;
  ldflags: string;
  /** Arguments that make the binary print its version, and the text that version must contain. */
  versionArgs: string[];
}

/** The smallest Go that builds our pins (the Temporal CLI 1.5.1 go.mod says go 1.25.0). */
const MIN_GO = [1, 25] as const;

/** Parses `go version go1.26.8 linux/amd64` into [1, 26]. */
export function parseGoVersion(text: string): [number, number] | undefined {
  const m = /go(\d+)\.(\d+)/.exec(text);
  return m ? [Number(m[1]), Number(m[2])] : undefined;
}

/** Whether the binary at `file` exists, runs, and reports `version`. */
export function reportsVersion(file: string, args: string[], version: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
  } catch {
    return false;
  }
  return outputOf(file, args)?.includes(version) ?? false;
}

export function goBinaryPath(cacheDir: string, spec: Pick<GoBinarySpec, 'name' | 'version' | 'binary'>): string {
  return path.join(cacheDir, `${spec.name}-${spec.version}`, spec.binary);
}

/**
 * Builds a pinned Go program with `go install` into the cache (CGO off, no toolchain download), or
 * reuses the cached build when it still reports the pinned version. The binary is moved into place
 * atomically, so an interrupted build never leaves a half-written file behind.
 */
export async function ensureGoBinary(cacheDir: string, spec: GoBinarySpec): Promise<string> {
  const target = goBinaryPath(cacheDir, spec);
  if (reportsVersion(target, spec.versionArgs, spec.version)) {
    say(`${spec.name} ${spec.version}: cached at ${target}`);
    return target;
  }
  const go = which('go');
  if (!go) throw new Error(`${spec.name}: go not found on PATH; install Go ≥ ${MIN_GO.join('.')} to build ${spec.module}@v${spec.version}`);
  const goVersion = parseGoVersion(outputOf(go, ['version']) ?? '');
  if (!goVersion || goVersion[0] < MIN_GO[0] || (goVersion[0] === MIN_GO[0] && goVersion[1] < MIN_GO[1])) {
    throw new Error(`${spec.name}: ${go} is Go ${goVersion?.join('.') ?? '(unknown)'}; Go ≥ ${MIN_GO.join('.')} is needed`);
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const gobin = fs.mkdtempSync(path.join(cacheDir, `.build-${spec.name}-`));
  say(`${spec.name} ${spec.version}: building with go install (first run only; a few minutes)…`);
  const started = Date.now();
  try {
    await runLogged(spec.name, go, ['install', '-trimpath', '-ldflags', spec.ldflags, `${spec.module}@v${spec.version}`], {
      env: { GOBIN: gobin, CGO_ENABLED: '0', GOTOOLCHAIN: 'local', GOFLAGS: '', GOWORK: 'off' },
    });
    fs.renameSync(path.join(gobin, spec.binary), target);
  } finally {
    fs.rmSync(gobin, { recursive: true, force: true });
  }
  if (!reportsVersion(target, spec.versionArgs, spec.version)) {
    throw new Error(`${spec.name}: built ${target} but it does not report version ${spec.version}`);
  }
  say(`${spec.name} ${spec.version}: built in ${Math.round((Date.now() - started) / 1000)} s → ${target}`);
  return target;
}
