import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureServicesBuilt, servicesBuildState } from './build-freshness';
import { buildServices, bundlePath, MANIFEST, ROOT, SERVICE_ENTRIES, sha256, type ServiceBundle } from './services-build';

/** The folders the bundle's modules take for their `__dirname`. */
const sourceFolders = (bundle: string, outDir: string) =>
  [...bundle.matchAll(/__strandPath\d*\.dirname\(__filename\), ("[^"]*")\)/g)].map((m) => path.resolve(outDir, JSON.parse(m[1]!) as string));

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'strand-build-'));

/** A checkout of one input file and a build of it (bundles are empty files: only their presence counts). */
function fakeBuild(content = 'export const a = 1;\n') {
  const root = tmp();
  const outDir = path.join(root, 'dist', 'services');
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(root, 'a.ts'), content);
  for (const name of Object.keys(SERVICE_ENTRIES) as ServiceBundle[]) fs.writeFileSync(bundlePath(name, outDir), '');
  fs.writeFileSync(path.join(outDir, MANIFEST), JSON.stringify({ recipe: 'r1', inputs: { 'a.ts': sha256(content) } }));
  return { root, outDir, state: () => servicesBuildState({ root, outDir, recipe: 'r1' }) };
}

describe('the freshness rule of dist/services', () => {
  test('a build is fresh while every input has the content it was built from, whatever its mtime', () => {
    const b = fakeBuild();
    try {
      expect(b.state()).toEqual({ fresh: true });
      const later = new Date(Date.now() + 60_000);
      fs.utimesSync(path.join(b.root, 'a.ts'), later, later);
      expect(b.state()).toEqual({ fresh: true });
    } finally {
      fs.rmSync(b.root, { recursive: true, force: true });
    }
  });

  test('a changed or deleted input makes it stale, and says which', () => {
    const b = fakeBuild();
    try {
      fs.writeFileSync(path.join(b.root, 'a.ts'), 'export const a = 2;\n');
      expect(b.state()).toEqual({ fresh: false, why: '1 source file changed since the build (a.ts)' });
      fs.rmSync(path.join(b.root, 'a.ts'));
      expect(b.state()).toEqual({ fresh: false, why: '1 source file changed since the build (a.ts)' });
    } finally {
      fs.rmSync(b.root, { recursive: true, force: true });
    }
  });

  test('another recipe, a missing bundle or no build at all is stale', () => {
    const b = fakeBuild();
    try {
      expect(servicesBuildState({ root: b.root, outDir: b.outDir, recipe: 'r2' })).toMatchObject({ fresh: false, why: expect.stringMatching(/recipe changed/) });
      fs.rmSync(bundlePath('worker', b.outDir));
      expect(b.state()).toEqual({ fresh: false, why: 'bundles missing: worker' });
      fs.rmSync(path.join(b.outDir, MANIFEST));
      expect(b.state()).toEqual({ fresh: false, why: 'no build in dist/services' });
    } finally {
      fs.rmSync(b.root, { recursive: true, force: true });
    }
  });
});

describe('a real build of the services', () => {
  const outDir = path.join(tmp(), 'services');
  afterAll(() => fs.rmSync(path.dirname(outDir), { recursive: true, force: true }));

  test('writes every bundle and a manifest of this checkout, is fresh after, and is not rebuilt unless forced', async () => {
    const manifest = await buildServices(outDir);
    for (const name of Object.keys(SERVICE_ENTRIES) as ServiceBundle[]) expect([name, fs.existsSync(bundlePath(name, outDir))]).toEqual([name, true]);
    expect(Object.keys(manifest.inputs)).toEqual(expect.arrayContaining(Object.values(SERVICE_ENTRIES)));
    expect(Object.keys(manifest.inputs).some((f) => f.startsWith('node_modules/'))).toBe(false);
    expect(servicesBuildState({ outDir })).toEqual({ fresh: true });
    const log: string[] = [];
    expect(await ensureServicesBuilt({ outDir, log: (m) => log.push(m) })).toEqual({ built: false });
    expect(await ensureServicesBuilt({ outDir, force: true, log: (m) => log.push(m) })).toEqual({ built: true });
    expect(log).toEqual(['building the services (forced)…']);
  });

  test('two builds at once into one folder both succeed and leave one whole, fresh build', async () => {
    await Promise.all([buildServices(outDir), buildServices(outDir), buildServices(outDir)]);
    expect(servicesBuildState({ outDir })).toEqual({ fresh: true });
    // No staging or replaced folder is left beside it.
    expect(fs.readdirSync(path.dirname(outDir))).toEqual(['services']);
  });

  test('keeps node_modules external and __dirname the source folder of each module that uses it', () => {
    const gateway = fs.readFileSync(bundlePath('gateway', outDir), 'utf8');
    expect(gateway).toMatch(/require\("@temporalio\/client"\)/);
    // services/gateway/http/web-route.ts finds dist/web from its own folder: the bundle must point there.
    expect(sourceFolders(gateway, outDir)).toContain(path.join(ROOT, 'services', 'gateway', 'http'));
    expect(gateway).not.toMatch(/\b__dirname\b/);
    const worker = fs.readFileSync(bundlePath('worker', outDir), 'utf8');
    // The workflows' sources (services/worker/workflow-bundle.ts) and the packaged scripts (activities/providers).
    expect(sourceFolders(worker, outDir)).toEqual(expect.arrayContaining([path.join(ROOT, 'services', 'worker'), path.join(ROOT, 'activities', 'providers')]));
  });
});
