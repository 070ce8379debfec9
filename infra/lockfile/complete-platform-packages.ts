import fs from 'node:fs';
import path from 'node:path';

/**
 * Completes package-lock.json with the per-platform optional packages a lock made on this machine
 * lacks. The registry mirror these machines use serves only some platforms' binaries (e.g. no
 * `@swc/core-darwin-arm64`), so `npm install` skips the rest and writes a lock that `npm ci` then
 * refuses ("Missing: … from lock file"). npm only needs each optional package's exact version (the
 * parent pins it) and its os/cpu/libc so other platforms skip it; those follow from the package name
 * by the convention every native-binary package uses. Entries carry no integrity, because the mirror
 * cannot give it; npm on the matching platform fetches the pinned version.
 *
 * usage: npx tsx infra/lockfile/complete-platform-packages.ts [package-lock.json]
 */

interface LockPackage {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
}

const OSES = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];
const CPUS = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'];

/** os/cpu/libc of a platform package from its name (`…-linux-arm64-musl`), or undefined. */
export function platformOf(name: string): Pick<LockPackage, 'os' | 'cpu' | 'libc'> | undefined {
  const parts = name.split('/').pop()!.split('-');
  const osIndex = parts.findIndex((p) => OSES.includes(p));
  if (osIndex < 0) return undefined;
  const cpu = parts.slice(osIndex + 1).find((p) => CPUS.includes(p));
  if (!cpu) return undefined;
  const rest = parts.slice(osIndex + 2).join('-');
  const os = parts[osIndex]!;
  const libc = os !== 'linux' ? undefined : /musl/.test(rest) ? 'musl' : /gnu|glibc/.test(rest) ? 'glibc' : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc: [libc] } : {}) };
}

/** Adds missing optional platform packages; returns the names added. */
export function completeLock(lock: { packages: Record<string, LockPackage> }): string[] {
  const added: string[] = [];
  for (const [key, pkg] of Object.entries(lock.packages)) {
    for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
      const installPath = `node_modules/${name}`;
      const nested = `${key}/node_modules/${name}`;
      if (lock.packages[installPath] || lock.packages[nested]) continue;
      const platform = platformOf(name);
      if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
      lock.packages[installPath] = { version, ...(pkg.dev ? { dev: true } : {}), optional: true, ...platform };
      added.push(`${name}@${version}`);
    }
  }
  lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
  return added;
}

if (require.main === module) {
  const file = path.resolve(process.argv[2] ?? 'package-lock.json');
  const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
  const added = completeLock(lock);
  fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(added.length ? `added ${added.length} platform packages:\n  ${added.join('\n  ')}` : 'nothing missing');
}
