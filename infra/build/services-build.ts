import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensureServicesBuilt, servicesBuildState } from './build-freshness';
import { build, transform, version as esbuildVersion, type Plugin } from 'esbuild';

/**
 * Builds strand's services once with esbuild into dist/services, so that a service (re)start runs
 * plain JavaScript instead of compiling TypeScript with tsx at every start (a gateway restart took
 * about 3.5 s that way). One CommonJS bundle per entry, node platform, linked source maps;
 * packages stay external, so node_modules resolve as from the sources.
 *
 * The worker's workflows are not in its bundle: the Temporal worker bundles them itself (webpack) from
 * the TypeScript sources named by services/worker/workflow-bundle.ts, and keeps that bundle on disk
 * between starts (services/worker/bundle-cache.ts). `__dirname` in a bundled file still names the
 * folder of its source (the plugin below), so those paths, the page bundle and the packaged
 * scripts are found as before.
 *
 * A build records the hash of each input file and of its own recipe (build-freshness.ts); a build
 * with the same inputs is skipped. Run by `npm start` and `npm test` through infra/ensure-deps.sh.
 *
 * usage: npx tsx infra/build/services-build.ts [--force | --check]
 */
export const ROOT = path.resolve(__dirname, '../..');
export const SERVICES_OUT_DIR = path.join(ROOT, 'dist', 'services');

/** Each bundle's entry module, by the name of its output file (`<name>.js`). */
export const SERVICE_ENTRIES = {
  gateway: 'services/gateway/main.ts',
  worker: 'services/worker/main.ts',
  store: 'services/session-store/main.ts',
  // Starts a service bundle in the same process, watching the runner's link (infra/stack/stack-specs.ts).
  'service-entry': 'infra/stack/service-entry.ts',
  // Runs nats-server and the Temporal CLI for the stack runner.
  watchdog: 'infra/stack/watchdog.ts',
  // The containers' entrypoint of the worker and the gateway (Dockerfile, docker-compose.yml).
  'run-as-project-owner': 'infra/docker/run-as-project-owner.ts',
} as const;
export type ServiceBundle = keyof typeof SERVICE_ENTRIES;

/** Where a bundle is (it may not exist yet). */
export const bundlePath = (name: ServiceBundle, outDir = SERVICES_OUT_DIR) => path.join(outDir, `${name}.js`);

export const MANIFEST = 'manifest.json';

/** What a build wrote: its recipe's hash and the hash of every input file (repository-relative). */
export interface ServicesManifest {
  recipe: string;
  inputs: Record<string, string>;
}

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/**
 * Everything besides the input files that decides the output: this file (the options), the esbuild
 * version and the tsconfig. A change of any of them is a rebuild.
 */
export function recipeHash(): string {
  const own = fs.readFileSync(path.join(ROOT, 'infra/build/services-build.ts'));
  return sha256([sha256(own), esbuildVersion, sha256(fs.readFileSync(path.join(ROOT, 'tsconfig.json')))].join('\n'));
}

/**
 * `__dirname` of a bundled module would be dist/services; a service's paths relative to its own
 * source (the workflows' sources, dist/web, packaged scripts) must not move. Each module that uses
 * it gets its source folder instead, relative to the bundle's folder, so a build copied elsewhere
 * with the sources beside it (the container image) still finds them. The name is replaced by
 * esbuild's `define` (code only, never strings or comments) with a module-level constant.
 */
function sourceDirnamePlugin(outDir: string): Plugin {
  const local = '__strandSourceDirname';
  return {
    name: 'source-dirname',
    setup(b) {
      b.onLoad({ filter: /\.tsx?$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const source = await fs.promises.readFile(args.path, 'utf8');
        if (!/\b__dirname\b/.test(source)) return undefined;
        const loader = args.path.endsWith('x') ? 'tsx' : 'ts';
        const out = await transform(source, { loader, define: { __dirname: local }, sourcemap: 'inline', sourcefile: args.path, format: 'esm', target: 'node20' });
        const relative = path.relative(outDir, path.dirname(args.path));
        // `__filename` is the bundle's own: its folder plus the way back to this module's source folder.
        const prologue = `import * as __strandPath from 'node:path';\nconst ${local} = __strandPath.resolve(__strandPath.dirname(__filename), ${JSON.stringify(relative)});\n`;
        return { contents: `${prologue}${out.code}`, loader: 'js' };
      });
    },
  };
}

/** The hash of every file under the repository that a build read (node_modules are not bundled). */
function inputHashes(inputs: string[]): Record<string, string> {
  const hashes: Record<string, string> = {};
  for (const input of inputs.sort()) hashes[input] = sha256(fs.readFileSync(path.join(ROOT, input)));
  return hashes;
}

const unique = () => `${process.pid}-${Date.now()}-${randomBytes(4).toString('hex')}`;
const codeOf = (err: unknown) => (err as NodeJS.ErrnoException).code;

/**
 * Puts `fresh` where `target` is. Two builds may finish together (`npm test` starts several stacks at
 * once): the one whose folder lands second finds the place taken by a build of the same inputs, and
 * keeps it.
 */
function replaceFolder(fresh: string, target: string): void {
  const old = `${target}.old-${unique()}`;
  try {
    fs.renameSync(target, old);
  } catch (err) {
    if (codeOf(err) !== 'ENOENT') throw err;
  }
  try {
    fs.renameSync(fresh, target);
  } catch (err) {
    if (codeOf(err) !== 'ENOTEMPTY' && codeOf(err) !== 'EEXIST') throw err;
  }
  fs.rmSync(old, { recursive: true, force: true });
}

/** Writes every bundle to a fresh folder that then replaces the old one: a start never reads half a build. */
export async function buildServices(outDir = SERVICES_OUT_DIR): Promise<ServicesManifest> {
  const staging = `${outDir}.tmp-${unique()}`;
  fs.mkdirSync(staging, { recursive: true });
  try {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: Object.fromEntries(Object.entries(SERVICE_ENTRIES).map(([name, entry]) => [name, path.join(ROOT, entry)])),
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      packages: 'external',
      sourcemap: 'linked',
      outdir: staging,
      metafile: true,
      logLevel: 'warning',
      tsconfig: path.join(ROOT, 'tsconfig.json'),
      plugins: [sourceDirnamePlugin(outDir)],
    });
    const manifest: ServicesManifest = { recipe: recipeHash(), inputs: inputHashes(Object.keys(result.metafile.inputs).filter((i) => !i.startsWith('node_modules/'))) };
    fs.writeFileSync(path.join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    replaceFolder(staging, outDir);
    return manifest;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const started = Date.now();
  const args = process.argv.slice(2);
  const say = (m: string) => console.error(`[services] ${m}`);
  if (args.includes('--check')) {
    const state = servicesBuildState();
    say(state.fresh ? 'the build in dist/services is up to date' : `the build in dist/services is stale: ${state.why}`);
    process.exit(state.fresh ? 0 : 1);
  }
  ensureServicesBuilt({ force: args.includes('--force'), log: say }).then(
    (r) => {
      if (r.built) say(`built ${Object.keys(SERVICE_ENTRIES).join(', ')} into ${path.relative(ROOT, SERVICES_OUT_DIR)} in ${Date.now() - started} ms`);
    },
    (err: unknown) => {
      say(`build FAILED: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
