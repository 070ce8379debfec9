import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ProcInfo } from '../../infra/stack/proc-table';
import { runDetached, stackPlace, type NpmRun, type StackPlace } from '../harness/stack-runner-npm';
import { killAll, runProcesses, waitAllGone } from '../harness/stack-runner-procs';

/**
 * The README's "nothing is downloaded at run time": `npm start` in a network namespace of its own with
 * only loopback (`unshare -n`, as root, which CI is), so any download would fail. The stack must still
 * announce ready (its warm-up turns included) and serve a whole turn to a client in the same namespace
 * (`nsenter`), which first checks that an address outside loopback is unreachable from there. The
 * bootstrapped binaries and node modules were installed before, as `npm test`'s bootstrap step does.
 */
const START_TIMEOUT_MS = 120_000;
const READY = /^\[strand\] ready\b/;
const REPO = path.resolve(__dirname, '../..');

let place: StackPlace | undefined;
let run: NpmRun | undefined;
const seen: ProcInfo[] = [];
const project = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-offline-project-'));

afterAll(async () => {
  if (place) {
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
  }
  fs.rmSync(project, { recursive: true, force: true });
}, 30_000);

test('npm start in a network namespace with only loopback: ready, and a whole turn is served', async () => {
  const probe = spawnSync('unshare', ['-n', 'true'], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`this test needs to create a network namespace (unshare -n, as root, as CI runs): ${probe.stderr.trim()}`);
  // The install step runs here, with the network, first: in a checkout whose lock is newer than its
  // node_modules, `npm start` would otherwise run `npm ci` offline, which removes node_modules and fails.
  const install = spawnSync('bash', [path.join(REPO, 'infra', 'ensure-deps.sh')], { cwd: REPO, encoding: 'utf8', timeout: 600_000 });
  if (install.status !== 0) throw new Error(`the install step failed before the offline start: ${install.stderr.trim()}`);
  place = await stackPlace();
  run = runDetached('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec npm start'], place.env);
  await run.waitFor(READY, START_TIMEOUT_MS);
  seen.push(...runProcesses(run.pid, place.dataDir));
  // Every process of the stack runs in the new namespace, not in the test's own.
  const own = fs.readlinkSync('/proc/self/ns/net');
  const namespaces = new Set(seen.map((p) => fs.readlinkSync(`/proc/${p.pid}/ns/net`)));
  expect([...namespaces]).toHaveLength(1);
  expect(namespaces.has(own)).toBe(false);
  expect(run.output()).not.toMatch(/warm-up skipped/i);

  // The stack's namespace is that of the process unshare became (sh, then npm).
  const driver = spawnSync('nsenter', [`--net=/proc/${run.pid}/ns/net`, process.execPath, '--import', 'tsx', path.join(__dirname, 'offline', 'prompt-driver.ts'), place.gateway, project], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (driver.status !== 0) throw new Error(`the driver failed (${driver.status}): ${driver.stderr}`);
  const result = JSON.parse(driver.stdout.trim().split('\n').pop()!) as { outside: string; created: number; prompted: number; text: string; outcome: string };
  // Nothing outside loopback answers from inside (no route), so the turn below needed no network.
  expect(['ENETUNREACH', 'EHOSTUNREACH', 'timeout']).toContain(result.outside);
  expect(result).toMatchObject({ created: 201, prompted: 202, text: 'You said: offline hello', outcome: 'done' });
}, 180_000);
