import fs from 'node:fs';
import path from 'node:path';
import { ensureServicesBuilt, readServicesManifest, servicesBuildState } from '../../infra/build/build-freshness';
import { MANIFEST, SERVICES_OUT_DIR } from '../../infra/build/services-build';
import { readProc, type ProcInfo } from '../../infra/stack/proc-table';
import { runNpm, stackPlace, type NpmRun, type StackPlace } from '../harness/stack-runner-npm';
import { killAll, listProcs, runProcesses, waitAllGone } from '../harness/stack-runner-procs';

/**
 * The stack `strand up` runs is the built one (dist/services, infra/build/services-build.ts), and the
 * runner never starts a stale build: here the build is made stale on purpose (one input's recorded
 * hash no longer matches), and `strand up` is run without npm's prestart step, so the runner's own
 * check must rebuild it and say why. The stack must then come up with every service on its bundle (no
 * tsx), serve its warm-up turns (the built worker runs the workflows) and the page, and stop cleanly.
 */
const START_TIMEOUT_MS = 180_000;
const READY = /^\[strand\] ready\b/;

let place: StackPlace | undefined;
let run: NpmRun | undefined;
const seen: ProcInfo[] = [];

afterAll(async () => {
  if (!place) return;
  const all = [...seen, ...runProcesses(run?.pid ?? -1, place.dataDir)];
  if (run) {
    try {
      process.kill(-run.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  killAll(await waitAllGone(all, 15_000));
  fs.rmSync(place.dataDir, { recursive: true, force: true });
}, 30_000);

test('strand up rebuilds a stale build, then runs every service from dist/services', async () => {
  await ensureServicesBuilt();
  const manifest = readServicesManifest()!;
  manifest.inputs['services/gateway/main.ts'] = 'not the hash of its content';
  fs.writeFileSync(path.join(SERVICES_OUT_DIR, MANIFEST), JSON.stringify(manifest));
  expect(servicesBuildState()).toEqual({ fresh: false, why: '1 source file changed since the build (services/gateway/main.ts)' });

  place = await stackPlace();
  run = runNpm(['run', 'strand', '--', 'up'], place.env);
  await run.waitFor(READY, START_TIMEOUT_MS);
  expect(run.output()).toContain('building the services (1 source file changed since the build (services/gateway/main.ts))');
  expect(run.output()).not.toMatch(/warm-up skipped/i);
  expect(servicesBuildState()).toEqual({ fresh: true });

  const procs = runProcesses(run.pid, place.dataDir);
  seen.push(...procs);
  const bundle = (name: string) => path.join(SERVICES_OUT_DIR, `${name}.js`);
  for (const service of ['store', 'worker', 'gateway']) {
    const running = procs.filter((p) => p.command.includes(bundle(service)));
    // `npm start` runs two workers (docs/multi-instance.md): each on the bundle.
    expect([service, running.length > 0]).toEqual([service, true]);
    for (const p of running) expect([service, p.command]).toEqual([service, `${process.execPath} ${bundle('service-entry')} ${bundle(service)}`]);
  }
  // nats-server and Temporal under the built watchdog.
  expect(procs.filter((p) => p.command.startsWith(`${process.execPath} ${bundle('watchdog')} `))).toHaveLength(2);
  const page = await fetch(`${place.gateway}/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toMatch(/<!DOCTYPE html>/i);

  // Ctrl-C as a terminal sends it (npm itself dies of it; the runner stops the stack).
  process.kill(-run.pid, 'SIGINT');
  await run.exited;
  expect(listProcs(await waitAllGone(procs.filter((p) => readProc(p.pid) !== undefined), 15_000))).toBe('');
}, 240_000);
