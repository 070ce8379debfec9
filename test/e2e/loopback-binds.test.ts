import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { type ProcInfo } from '../../infra/stack/proc-table';
import { decodeProcAddress, isLoopback, listeningSockets, type ListeningSocket } from '../harness/listening-sockets';
import { runNpm, stackPlace, type NpmRun, type StackPlace } from '../harness/stack-runner-npm';
import { killAll, runProcesses, waitAllGone } from '../harness/stack-runner-procs';

/**
 * The README's "every server binds 127.0.0.1": `npm start` as a person runs it (Temporal dev server
 * with its UI, nats-server, store, two workers, gateway), then every listening TCP socket of every
 * process of that run, read from /proc. Each must be bound to loopback, and each server the README
 * names must be among them, on its configured port, so a server that moved to 0.0.0.0 (or stopped
 * being checked) fails the test. Each worker's two metrics listeners (its own and the Temporal SDK's)
 * are named too.
 */
const START_TIMEOUT_MS = 120_000;
const READY = /^\[strand\] ready\b/;

let place: StackPlace | undefined;
let run: NpmRun | undefined;
let seen: ProcInfo[] = [];
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
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

const describeSocket = (s: ListeningSocket, procs: ProcInfo[]) => `${s.address}:${s.port} (pid ${s.pid} ${procs.find((p) => p.pid === s.pid)?.command.slice(0, 100)})`;

test('the socket reading tells loopback from every-interface binds (so the next test can fail)', async () => {
  // How the kernel prints 127.0.0.1: a 32-bit word in host byte order.
  expect(decodeProcAddress(os.endianness() === 'LE' ? '0100007F' : '7F000001')).toBe('127.0.0.1');
  const listen = (host: string) =>
    new Promise<{ pid: number; port: number }>((resolve, reject) => {
      const child = spawn(process.execPath, ['-e', `const s = require('net').createServer().listen(0, '${host}', () => console.log(s.address().port))`], { stdio: ['ignore', 'pipe', 'inherit'] });
      children.push(child);
      child.stdout?.once('data', (d: Buffer) => resolve({ pid: child.pid ?? -1, port: Number(String(d).trim()) }));
      child.once('exit', (code) => reject(new Error(`listener on ${host} exited (${code})`)));
    });
  const hosts = ['127.0.0.1', '0.0.0.0', '::1', '::'];
  const bound = await Promise.all(hosts.map(listen));
  const found = listeningSockets(bound.map((b) => b.pid));
  expect(hosts.map((_, i) => found.filter((s) => s.pid === bound[i]!.pid).map((s) => [s.address, s.port]))).toEqual(hosts.map((h, i) => [[h, bound[i]!.port]]));
  expect(found.map((s) => isLoopback(s.address))).toEqual([true, false, true, false]);
});

test('npm start: every listening socket of every process of the stack is bound to loopback, one for each server', async () => {
  place = await stackPlace();
  run = runNpm(['start'], place.env);
  await run.waitFor(READY, START_TIMEOUT_MS);
  const procs = runProcesses(run.pid, place.dataDir);
  seen = procs;
  const sockets = listeningSockets(procs.map((p) => p.pid));

  expect(sockets.filter((s) => !isLoopback(s.address)).map((s) => describeSocket(s, procs))).toEqual([]);

  // Each server on its configured port, held by the process that serves it.
  const { ports } = place;
  const holder = (port: number) => sockets.filter((s) => s.port === port).map((s) => procs.find((p) => p.pid === s.pid)?.command ?? '');
  // `npm start` runs the built services (docs/local-stack.md, "Built services").
  const expected: Array<[string, number, RegExp]> = [
    ['gateway HTTP', ports.gateway, /dist\/services\/gateway\.js$/],
    ['gateway EDN', Number(place.env.STRAND_EDN_PORT), /dist\/services\/gateway\.js$/],
    ['nats-server', ports.nats, /nats-server/],
    ['Temporal frontend', ports.temporal, /temporal server start-dev/],
    ['Temporal UI', ports.temporalUi, /temporal server start-dev/],
  ];
  for (const [name, port, command] of expected) {
    const commands = holder(port);
    expect({ name, port, held: commands.length > 0 }).toEqual({ name, port, held: true });
    expect({ name, port, heldBy: commands.filter((c) => !command.test(c)) }).toEqual({ name, port, heldBy: [] });
  }
  // Each worker serves /metrics on a port it picks (STRAND_WORKER_METRICS_PORT unset) and announces in its
  // ready line; the Temporal SDK in it serves its own metrics on another, read through that one.
  const workerMetrics = [...run.output().matchAll(/\[worker(?:#\d+)?\].* ready .*metrics=http:\/\/127\.0\.0\.1:(\d+)\/metrics/g)].map((m) => Number(m[1]));
  expect(workerMetrics.length).toBe(2);
  for (const port of workerMetrics) {
    const [pid, ...others] = sockets.filter((s) => s.port === port).map((s) => s.pid);
    expect({ port, others, command: procs.find((p) => p.pid === pid)?.command }).toEqual({ port, others: [], command: expect.stringMatching(/dist\/services\/worker\.js$/) });
    expect({ port, listeners: sockets.filter((s) => s.pid === pid).length }).toEqual({ port, listeners: 2 });
  }
  // The Temporal dev server's own HTTP API, metrics and internal services listen too: they are in the list above.
  expect(sockets.length).toBeGreaterThan(expected.length + workerMetrics.length);
}, 180_000);
