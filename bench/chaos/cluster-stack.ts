import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_EVENTS_STREAM } from '../../contracts/agent-event-stream';
import { streamReplicas } from '../../infra/compose/cluster-checks';
import { ComposeProject } from '../../infra/compose/compose-project';
import type { DockerTools } from '../../infra/compose/docker-tools';
import { mustRun, runCommand } from '../../infra/compose/run-command';
import { workerContainerRunning } from '../../infra/compose/running-worker';
import { freePort } from '../../infra/stack/free-port';
import { REPO_ROOT } from '../../infra/stack/stack-config';
import type { LogLine } from './chaos-stack';
import type { ClusterScenario } from './cluster-scenarios';
import type { ChaosConfig } from './config';
import type { FaultRecord } from './fault';
import { call } from './gateway-api';
import type { ChaosTarget } from './target';

/** The clustered compose stack as a chaos target, plus what the runner needs between trials. */
export interface ClusterStack extends ChaosTarget {
  /** Starts what a trial left stopped or cut off and waits until the cluster is whole again; names what it repaired. */
  ensureUp(): Promise<string[]>;
  teardown(): Promise<void>;
}

const PROJECT = 'strand-chaos-cluster';
const RECENT_LINES = 5_000;
/** Services that run once and exit (they are not brought back). */
const ONE_SHOT = new Set(['temporal-schema', 'temporal-setup']);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The address containers reach the host on (`host.docker.internal` = the default bridge's address). */
export async function hostGatewayAddress(tools: DockerTools): Promise<string> {
  const bridge = (await mustRun(tools.docker, ['network', 'inspect', 'bridge', '--format', '{{index .Options "com.docker.network.bridge.name"}}'], { env: tools.env, timeoutMs: 30_000 })).trim() || 'docker0';
  // `ip`, not os.networkInterfaces(): a bridge with no container attached is down, and Node lists only interfaces that are up.
  const address = /inet (\d+\.\d+\.\d+\.\d+)/.exec((await runCommand('ip', ['-4', '-o', 'addr', 'show', 'dev', bridge], { timeoutMs: 10_000 })).stdout)?.[1];
  if (!address) throw new Error(`no IPv4 address on the Docker bridge ${bridge}: containers could not reach a server on this host`);
  return address;
}

interface ContainerState {
  id: string;
  service: string;
  running: boolean;
  pid: number;
  health: string;
}

/**
 * Brings docker-compose.cluster.yml up under its own project name on free loopback ports, the workers
 * pointed at `providerPort` on the host as an OpenAI-compatible server, the projects mount at
 * `projectsDir`; follows every service's log (`compose logs -f`) into `logFile` and a recent tail.
 */
export async function startClusterStack(opts: { tools: DockerTools; providerPort: number; projectsDir: string; logFile: string; config: ChaosConfig }): Promise<ClusterStack> {
  const { tools, config } = opts;
  const token = `strand_${randomBytes(32).toString('base64url')}`;
  const ports = { http: await freePort(), edn: await freePort(), temporal: await freePort(), ui: await freePort(), nats: [await freePort(), await freePort(), await freePort()] };
  const compose = new ComposeProject(
    tools,
    REPO_ROOT,
    PROJECT,
    {
      STRAND_PROJECTS_DIR: opts.projectsDir,
      STRAND_GATEWAY_PORT: String(ports.http),
      STRAND_EDN_PORT: String(ports.edn),
      STRAND_TEMPORAL_PORT: String(ports.temporal),
      STRAND_TEMPORAL_UI_PORT: String(ports.ui),
      STRAND_NATS_PORT: String(ports.nats[0]),
      STRAND_NATS_2_PORT: String(ports.nats[1]),
      STRAND_NATS_3_PORT: String(ports.nats[2]),
      STRAND_TOKENS: `${token}:chaos`,
      STRAND_RUN_AS: '',
      STRAND_DEFAULT_MODEL: '',
      STRAND_LOG_LEVEL: 'warn',
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_BASE_URL: '',
      OPENAI_API_KEY: 'chaos-key',
      OPENAI_BASE_URL: `http://host.docker.internal:${opts.providerPort}/v1`,
    },
    'docker-compose.cluster.yml',
  );
  const natsUrls = ports.nats.map((p) => `nats://127.0.0.1:${p}`);
  const temporalAddress = `127.0.0.1:${ports.temporal}`;
  const base = `http://127.0.0.1:${ports.http}`;
  const docker = (args: string[], timeoutMs = 60_000) => mustRun(tools.docker, args, { env: tools.env, timeoutMs });

  await compose.down();
  await compose.buildStrandImage();
  await compose.buildImage('strand-haproxy:local', 'infra/compose/cluster/haproxy');
  // A stack that did not come up is removed before the error goes on.
  await compose.up().catch(async (err: unknown) => {
    await compose.down();
    throw err;
  });

  fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const log = fs.createWriteStream(opts.logFile, { flags: 'a' });
  const recent: LogLine[] = [];
  const onLine = (service: string, line: string) => {
    recent.push({ at: performance.now(), service, line });
    if (recent.length > RECENT_LINES) recent.shift();
    log.write(`${new Date().toISOString()} [${service}] ${line}\n`);
  };
  const follower = followLogs(tools, compose, onLine);

  const containers = async (): Promise<ContainerState[]> => {
    const out = await docker(['ps', '-a', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--format', '{{.ID}}']);
    const ids = out.split('\n').map((l) => l.trim()).filter(Boolean);
    if (ids.length === 0) return [];
    const fmt = '{{.Id}} {{index .Config.Labels "com.docker.compose.service"}} {{.State.Running}} {{.State.Pid}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}';
    // A container removed between the two calls makes inspect exit 1; the others are still printed.
    const inspected = await runCommand(tools.docker, ['inspect', '-f', fmt, ...ids], { env: tools.env, timeoutMs: 60_000 });
    return inspected.stdout.split('\n').filter(Boolean).map((l) => {
      const [id, service, running, pid, health] = l.trim().split(' ');
      return { id: id!, service: service!, running: running === 'true', pid: Number(pid), health: health! };
    });
  };
  const stateOf = async (id: string) => (await containers()).find((c) => c.id === id);
  const network = `${PROJECT}_default`;
  const disconnected = new Map<string, string>();

  /** Until the container runs again (another pid than `oldPid`, if given) and is healthy; when each happened. */
  const waitBack = async (id: string, oldPid: number | undefined, timeoutMs = 180_000): Promise<{ runningAt: number; healthyAt: number }> => {
    const deadline = performance.now() + timeoutMs;
    let runningAt = 0;
    for (;;) {
      const s = await stateOf(id);
      const now = performance.now();
      const running = Boolean(s?.running && s.pid > 0 && s.pid !== oldPid);
      if (running && !runningAt) runningAt = now;
      if (running && (s!.health === 'healthy' || s!.health === 'none')) return { runningAt, healthyAt: now };
      if (now > deadline) throw new Error(`container ${id.slice(0, 12)} (${s?.service}) not back and healthy within ${timeoutMs / 1000} s (${JSON.stringify(s)})`);
      await sleep(250);
    }
  };

  /** The events stream's leader and the other nodes, as JetStream reports them. */
  const natsRoles = async () => {
    const events = (await streamReplicas(natsUrls)).find((s) => s.stream === AGENT_EVENTS_STREAM);
    if (!events?.leader) throw new Error(`${AGENT_EVENTS_STREAM} has no leader now`);
    return { leader: events.leader, others: ['nats-1', 'nats-2', 'nats-3'].filter((n) => n !== events.leader), events };
  };

  /** The gateway serving the session's SSE stream: the balancer logs each request as its answer starts. */
  const gatewayServing = async (sessionId: string): Promise<string> => {
    const deadline = performance.now() + 10_000;
    for (;;) {
      const line = [...recent].reverse().find((l) => l.service === 'balancer' && l.line.includes(`/api/sessions/${sessionId}/events`));
      const server = /gateways_http\/(gateway-\d)/.exec(line?.line ?? '')?.[1];
      if (server) return server;
      if (performance.now() > deadline) throw new Error(`the balancer's log names no gateway serving ${sessionId}'s events`);
      await sleep(200);
    }
  };

  let aimed: { label: string; container: string } | undefined;
  const target: ClusterStack = {
    base,
    token,
    recent,
    async aim(s, sessionId, turn, activity) {
      const scenario = s as ClusterScenario;
      let service: string;
      if (scenario.component === 'worker') {
        const id = await workerContainerRunning(compose, temporalAddress, sessionId, turn, activity);
        aimed = { label: `worker ${id.slice(0, 12)}`, container: id };
        return aimed.label;
      }
      if (scenario.component === 'nats-leader') service = (await natsRoles()).leader;
      else if (scenario.component === 'nats-follower') service = (await natsRoles()).others[0]!;
      else if (scenario.component === 'gateway') service = await gatewayServing(sessionId);
      else service = scenario.component;
      aimed = { label: `${service}${scenario.component.startsWith('nats-') ? ` (${scenario.component === 'nats-leader' ? 'leads' : 'follows in'} ${AGENT_EVENTS_STREAM})` : ''}`, container: await compose.containerOf(service) };
      return aimed.label;
    },
    async inject(s) {
      const scenario = s as ClusterScenario;
      if (!aimed) throw new Error('inject before aim');
      const { container } = aimed;
      aimed = undefined;
      const record: FaultRecord = { at: performance.now(), downAt: 0 };
      try {
        const before = await stateOf(container);
        if (scenario.fault === 'kill') {
          process.kill(before!.pid, 'SIGKILL');
          record.downAt = performance.now();
          // The restart policy starts it again at once: counted from there to healthy.
          const back = await waitBack(container, before!.pid);
          record.restartAt = back.runningAt;
          record.upAt = back.healthyAt;
        } else if (scenario.fault === 'stop') {
          await docker(['stop', '-t', '10', container]);
          record.downAt = performance.now();
          await sleep(config.restartDelayMs);
          record.restartAt = performance.now();
          await docker(['start', container]);
          record.upAt = (await waitBack(container, before!.pid)).healthyAt;
        } else {
          await docker(['network', 'disconnect', network, container]);
          disconnected.set(container, before!.service);
          record.downAt = performance.now();
          await sleep(config.outageMs);
          record.restartAt = performance.now();
          // With the service's name as its alias again, as compose had connected it.
          await docker(['network', 'connect', '--alias', before!.service, network, container]);
          disconnected.delete(container);
          record.upAt = (await waitBack(container, undefined)).healthyAt;
        }
      } catch (err) {
        record.error = (err as Error).message.split('\n').slice(0, 4).join(' | ');
      }
      return record;
    },
    downMs: (s) => (s.fault === 'partition' ? config.outageMs : 0),
    async ensureUp() {
      const repaired: string[] = [];
      for (const [container, service] of disconnected) {
        await docker(['network', 'connect', '--alias', service, network, container]).catch(() => undefined);
        disconnected.delete(container);
        repaired.push(`${service} (reconnected)`);
      }
      for (const c of await containers()) {
        if (c.running || ONE_SHOT.has(c.service)) continue;
        onLine('chaos', `${c.service} ${c.id.slice(0, 12)} is down after the trial: starting it again`);
        await docker(['start', c.id]);
        repaired.push(c.service);
      }
      // The next trial starts on a whole cluster: every container healthy, and every stream (the
      // sessions, the events, each key-value bucket) with a leader and two current followers. A
      // partitioned node that comes back holds a higher Raft term and makes every stream elect again,
      // each in its own time: the sessions stream had no leader 3 s after the events stream had one.
      const deadline = performance.now() + 180_000;
      for (;;) {
        const sick = (await containers()).filter((c) => !ONE_SHOT.has(c.service) && (!c.running || (c.health !== 'healthy' && c.health !== 'none')));
        const streams = sick.length ? undefined : await streamReplicas(natsUrls).catch(() => undefined);
        const notWhole = streams?.filter((s) => !s.leader || s.current_followers !== 2);
        if (!sick.length && streams?.some((s) => s.stream === AGENT_EVENTS_STREAM) && notWhole?.length === 0) break;
        if (performance.now() > deadline) throw new Error(`the cluster is not whole again after 180 s: ${sick.map((c) => `${c.service} ${c.health}`).join(', ') || JSON.stringify(notWhole ?? streams)}`);
        await sleep(500);
      }
      return repaired;
    },
    async teardown() {
      follower.kill();
      await compose.down();
      await new Promise((resolve) => log.end(resolve));
    },
  };
  await warmUp(base, token, opts.projectsDir).catch(async (err: unknown) => {
    await target.teardown();
    throw err;
  });
  return target;
}

/** `compose logs -f`: every service's lines, prefixed `<container name> | `, handed over one by one. */
function followLogs(tools: DockerTools, compose: ComposeProject, onLine: (service: string, line: string) => void): ChildProcess {
  const child = spawn(tools.compose[0]!, [...tools.compose.slice(1), ...compose.argsFor(['logs', '-f', '--no-color'])], { env: compose.environment, stdio: ['ignore', 'pipe', 'ignore'] });
  let pending = '';
  child.stdout!.on('data', (b: Buffer) => {
    pending += b.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const l of lines) {
      const m = /^(\S+?)(?:-\d+)?\s+\|\s?(.*)$/.exec(l);
      if (m) onLine(m[1]!, m[2]!);
    }
  });
  return child;
}

/** A turn on each worker before the first trial (as `npm start` warms up), so no trial pays a worker's first turn. */
async function warmUp(base: string, token: string, projectsDir: string): Promise<void> {
  const project = fs.mkdtempSync(path.join(projectsDir, 'warm-up-'));
  fs.chownSync(project, fs.statSync(projectsDir).uid, fs.statSync(projectsDir).gid);
  for (let i = 0; i < 4; i++) {
    const created = await call<{ session_id: string }>(base, 'POST', '/api/sessions', { project_path: project, model: 'scripted/echo' }, 15_000, token);
    if (created.status !== 201) throw new Error(`warm-up: POST /api/sessions answered ${created.status}: ${JSON.stringify(created.body)}`);
    const sid = created.body.session_id;
    const prompt = await call(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'warm up' }, 15_000, token);
    if (prompt.status !== 202) throw new Error(`warm-up: the prompt answered ${prompt.status}`);
    const deadline = Date.now() + 120_000;
    for (;;) {
      const page = await call<{ messages?: unknown[] }>(base, 'GET', `/api/sessions/${sid}/messages`, undefined, 15_000, token);
      if ((page.body.messages?.length ?? 0) >= 2) break;
      if (Date.now() > deadline) throw new Error('warm-up: the turn did not finish within 120 s');
      await sleep(500);
    }
  }
}
