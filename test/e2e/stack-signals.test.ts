import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { readChildRecords } from '../../infra/stack/child-records';
import { STACK_MARKER } from '../../infra/stack/leftovers';
import { isRunning, readProc, type ProcInfo } from '../../infra/stack/proc-table';
import { healthStatus, runNpm, stackPlace, type NpmRun, type StackPlace } from '../harness/stack-runner-npm';
import { busyPorts, killAll, listProcs, portFree, runProcesses, waitAllGone } from '../harness/stack-runner-procs';

/**
 * `npm start` as people run it from a terminal: Ctrl-C reaches npm, its shell, tsx and our runner
 * all at once; npm exits immediately. Whatever happens to the runner, no process of the stack may
 * survive it for more than 15 s or keep a port. Four full stack starts in all (each ~10-20 s).
 */
const STOP_LIMIT_MS = 15_000;
const START_TIMEOUT_MS = 120_000;
const READY = /^\[strand\] ready\b/;
const READY_ANYWHERE = /^\[strand\] ready\b/m;

interface Tracked {
  place: StackPlace;
  rootPid?: number;
  seen: ProcInfo[];
}
const tracked: Tracked[] = [];

/** A fresh place (data dir, ports) whose processes are all killed after the test, pass or fail. */
async function newPlace(): Promise<Tracked> {
  const t: Tracked = { place: await stackPlace(), seen: [] };
  tracked.push(t);
  return t;
}

function runnerPid(place: StackPlace): number {
  return Number(fs.readFileSync(path.join(place.dataDir, 'stack.pid'), 'utf8').trim());
}

afterEach(() => {
  for (const t of tracked.splice(0)) {
    // Found while the tree is whole: once the runner is killed its children are reparented.
    const all = [...t.seen, ...runProcesses(t.rootPid ?? -1, t.place.dataDir)];
    // The runner first, or it would restart the services killed next.
    const runner = readProc(fs.existsSync(path.join(t.place.dataDir, 'stack.pid')) ? runnerPid(t.place) : -1);
    if (runner?.command.includes('services/cli/main.ts')) killAll([runner]);
    killAll(all);
    fs.rmSync(t.place.dataDir, { recursive: true, force: true });
  }
});

async function startForeground(t: Tracked): Promise<NpmRun> {
  const run = runNpm(['start'], t.place.env);
  t.rootPid = run.pid;
  await run.waitFor(READY, START_TIMEOUT_MS);
  return run;
}

/** Every process of the run, taken while it is complete (npm, sh, tsx, launcher, runner, services). */
function snapshot(t: Tracked, rootPid: number): ProcInfo[] {
  const procs = runProcesses(rootPid, t.place.dataDir);
  t.seen.push(...procs);
  return procs;
}

/** Within 15 s: none of `procs` runs, nothing carries the data dir, and every port is free again. */
async function expectStackGone(t: Tracked, procs: ProcInfo[], since: number): Promise<void> {
  const left = await waitAllGone(procs, STOP_LIMIT_MS - (Date.now() - since));
  expect(listProcs(left)).toBe('');
  // Anything of the stack started after the snapshot (a service launched while the signal arrived).
  const late = await waitAllGone(runProcesses(-1, t.place.dataDir), Math.max(0, STOP_LIMIT_MS - (Date.now() - since)));
  expect(listProcs(late)).toBe('');
  expect(Date.now() - since).toBeLessThan(STOP_LIMIT_MS);
  expect(await busyPorts(Object.values(t.place.ports))).toEqual([]);
}

describe('npm start under terminal signals', () => {
  test('Ctrl-C (SIGINT to the whole process group) as soon as the gateway answers, the worker still starting, stops every process within 15 s', async () => {
    const t = await newPlace();
    const run = runNpm(['start'], t.place.env);
    t.rootPid = run.pid;
    // What terminal-stop-check.sh does, and what people do: Ctrl-C once the gateway is up.
    const deadline = Date.now() + START_TIMEOUT_MS;
    while ((await healthStatus(t.place.gateway)) !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await healthStatus(t.place.gateway)).toBe(200);
    const procs = snapshot(t, run.pid);
    const since = Date.now();
    process.kill(-run.pid, 'SIGINT');
    await expectStackGone(t, procs, since);
  }, 180_000);

  test('a worker killed with -9 is restarted; then SIGTERM to the whole process group stops every process within 15 s', async () => {
    const t = await newPlace();
    const run = await startForeground(t);
    expect(run.output()).toMatch(/\[strand\] ready .*Ctrl-C stops/);

    const worker = readChildRecords(t.place.dataDir)?.children.find((c) => c.name === 'worker');
    expect(worker).toBeDefined();
    process.kill(worker?.pid ?? -1, 'SIGKILL');
    await run.waitFor(/^\[worker\]\s+exited unexpectedly \(killed by SIGKILL\); restarting in 0\.5 s/, 10_000);
    await run.waitFor(/^\[worker\]\s+ready\b/, 60_000, 2);
    await run.waitFor(/^\[worker\]\s+restarted/, 10_000);
    expect(await healthStatus(t.place.gateway)).toBe(200);
    const restarted = readChildRecords(t.place.dataDir)?.children.find((c) => c.name === 'worker');
    expect(restarted?.pid).not.toBe(worker?.pid);

    const procs = snapshot(t, run.pid);
    expect(procs.length).toBeGreaterThanOrEqual(9);
    const since = Date.now();
    process.kill(-run.pid, 'SIGTERM');
    await expectStackGone(t, procs, since);
    // Services stopped on purpose are not restarted.
    expect(run.output().match(/exited unexpectedly/g)).toHaveLength(1);
  }, 180_000);

  test('a gateway killed with -9 as soon as it is ready, before the stack says ready (the warm-up turns), is restarted too', async () => {
    const t = await newPlace();
    // Slow warm-up turns (about 4 s each) keep `[strand] ready` seconds away from the gateway's first
    // healthy answer: services that start in under a second left too small a window for the kill.
    t.place.env = { ...t.place.env, STRAND_SCRIPTED_DELTA_DELAY_MS: '300' };
    const run = runNpm(['start'], t.place.env);
    t.rootPid = run.pid;
    // Ready as the runner judges it (its /healthz answers; the runner polls it), while the workers
    // still start and the warm-up turns have not run: `[strand] ready` is seconds away.
    const deadline = Date.now() + START_TIMEOUT_MS;
    while ((await healthStatus(t.place.gateway)) !== 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500));
    expect(run.output()).not.toMatch(READY_ANYWHERE);
    const gateway = readChildRecords(t.place.dataDir)?.children.find((c) => c.name === 'gateway');
    expect(gateway).toBeDefined();
    process.kill(gateway?.pid ?? -1, 'SIGKILL');
    await run.waitFor(/^\[gateway\]\s+exited unexpectedly \(killed by SIGKILL\); restarting in 0\.5 s/, 10_000);
    await run.waitFor(/^\[gateway\]\s+restarted/, 60_000);
    await run.waitFor(READY, START_TIMEOUT_MS);
    expect(await healthStatus(t.place.gateway)).toBe(200);
    // The kill landed before the stack said it was ready: it was supervised from its start, and the
    // stack said ready only once the new gateway was up (a warm-up turn cut by the kill was tried again).
    const out = run.output();
    expect(out.indexOf('exited unexpectedly')).toBeLessThan(out.search(READY_ANYWHERE));
    expect(out.search(/^\[gateway\]\s+restarted/m)).toBeLessThan(out.search(READY_ANYWHERE));
    const procs = snapshot(t, run.pid);
    const since = Date.now();
    process.kill(-run.pid, 'SIGINT');
    await expectStackGone(t, procs, since);
  }, 180_000);

  test('Ctrl-C mid-answer: the last line says which turn was running and that it goes on when strand starts again', async () => {
    const t = await newPlace();
    t.place.env = { ...t.place.env, STRAND_SCRIPTED_DELTA_DELAY_MS: '100' };
    const run = await startForeground(t);
    const post = (route: string, body: unknown) => fetch(`${t.place.gateway}${route}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const sid = ((await (await post('/api/sessions', { project_path: t.place.dataDir, model: 'scripted/echo' })).json()) as { session_id: string }).session_id;
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    expect((await post(`/api/sessions/${sid}/prompt`, { text: words })).status).toBe(202);
    const procs = snapshot(t, run.pid);
    const since = Date.now();
    process.kill(-run.pid, 'SIGINT');
    await expectStackGone(t, procs, since);
    const last = run.output().split('\n').find((l) => l.startsWith('[strand] stopped in')) ?? run.output().slice(-500);
    expect(last).toMatch(/^\[strand\] stopped in [\d.]+ s; a turn was running \(/);
    expect(last).toContain(`${sid} t1`);
    expect(last).toContain('it goes on where it stopped when strand starts again');
  }, 180_000);

  test('SIGKILL to the runner alone: its services exit by themselves and free their ports', async () => {
    const t = await newPlace();
    const run = await startForeground(t);
    const runner = runnerPid(t.place);
    const procs = snapshot(t, run.pid);
    expect(procs.map((p) => p.pid)).toContain(runner);
    const since = Date.now();
    process.kill(runner, 'SIGKILL');
    await expectStackGone(t, procs, since);

    const status = runNpm(['run', '--silent', 'strand', '--', 'status'], t.place.env);
    await status.exited;
    expect(status.output()).toContain('[strand] not running');
  }, 180_000);

  test('a stale stack is cleaned up on the next start; `npm start -- -d` names `npm stop`, which stops it within 15 s', async () => {
    const t = await newPlace();
    const { dataDir, ports } = t.place;
    // What a crash leaves: a pid file whose pid now belongs to something else…
    const unrelated = spawn('sleep', ['300'], { stdio: 'ignore' });
    t.seen.push(readProc(unrelated.pid ?? -1) as ProcInfo);
    fs.writeFileSync(path.join(dataDir, 'stack.pid'), `${unrelated.pid}\n`);
    // …and a process of the dead stack still holding the gateway's port.
    const listen = `require('net').createServer().listen(${ports.gateway}, '127.0.0.1')`;
    const leftover = spawn(process.execPath, ['-e', listen], { env: { ...process.env, [STACK_MARKER]: dataDir }, stdio: 'ignore', detached: true });
    for (let i = 0; i < 50 && (await portFree(ports.gateway)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await portFree(ports.gateway)).toBe(false);

    const up = runNpm(['start', '--', '-d'], t.place.env);
    t.rootPid = up.pid;
    await up.waitFor(READY, START_TIMEOUT_MS);
    expect((await up.exited).code).toBe(0);
    const ready = up.output().split('\n').find((l) => READY.test(l)) ?? '';
    expect(ready).toContain('npm stop');
    expect(ready).not.toContain('Ctrl-C');
    const log = fs.readFileSync(path.join(dataDir, 'stack.log'), 'utf8');
    expect(log).toContain(`left over from an earlier run of ${dataDir}`);
    expect(log).toContain(`${leftover.pid} (`);
    expect(isRunning(leftover.pid ?? -1)).toBe(false);
    expect(isRunning(unrelated.pid ?? -1)).toBe(true); // not ours: left alone
    expect(await healthStatus(t.place.gateway)).toBe(200);

    const runner = runnerPid(t.place);
    expect(runner).not.toBe(unrelated.pid);
    const procs = snapshot(t, runner);
    expect(procs.length).toBeGreaterThanOrEqual(8);
    const since = Date.now();
    const stop = runNpm(['stop'], t.place.env);
    expect((await stop.exited).code).toBe(0);
    expect(stop.output()).toContain('[strand] stopped');
    await expectStackGone(t, procs, since);
    unrelated.kill('SIGKILL');
  }, 180_000);
});
