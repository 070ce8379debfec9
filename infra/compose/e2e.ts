import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { AGENT_EVENTS_STREAM } from '../../contracts/agent-event-stream';
import { RUNNING_ACTIVITIES_BUCKET } from '../../contracts/worker-presence';
import { healthyReplySchema } from '../../contracts/http-replies';
import { connectEdnTcp, kindOf } from '../../test/harness/edn-client';
import { freePort } from '../stack/free-port';
import { checkEdnTurn, checkReplicas, checkWebSocketTurn } from './cluster-checks';
import { ComposeProject } from './compose-project';
import { findDockerTools } from './docker-tools';
import { runTurns } from './e2e-turns';
import { createWorkspace } from './e2e-workspace';
import { lastLines } from './run-command';
import { workerContainerRunning } from './running-worker';
import { strandHttp, type StrandHttp } from './strand-http';

/**
 * `npm run compose:e2e`: strand's real docker-compose.yml, end to end, on whatever Docker engine is
 * here. Builds strand's image, brings the stack up (`up --wait`, nothing pulled), reads the generated
 * token the documented way, checks auth on HTTP and EDN, runs a turn with tools on a project directory
 * of the host, and a second turn during which the main process of the worker container running it is
 * SIGKILLed; then `down -v`. Prints figures as a JSON line. Without an engine, Compose v2 or the images
 * it says SKIPPED and why, and exits 0 (STRAND_COMPOSE_E2E_REQUIRED=1 or --required: exits 1 instead).
 *
 * `-- --cluster`: docker-compose.cluster.yml instead (docs/multi-instance.md, "A clustered stack"):
 * the same turns through the load balancer on SSE, then a WebSocket chat and an EDN prompt through it,
 * and every JetStream stream checked for 3 replicas with a leader and two current followers.
 */
const ROOT = path.resolve(__dirname, '../..');
const CLUSTER = process.argv.includes('--cluster');
const COMPOSE_FILE = CLUSTER ? 'docker-compose.cluster.yml' : 'docker-compose.yml';
/** Its own project name: the containers and volumes `down -v` removes are never a user's `strand` stack. */
const PROJECT = process.env.STRAND_COMPOSE_E2E_PROJECT || (CLUSTER ? 'strand-compose-cluster-e2e' : 'strand-compose-e2e');
/** The load balancer's image (built from infra/compose/cluster/haproxy, FROM debian:bookworm). */
/** The stream the stores' jetstream adapter keeps sessions in (its default name, docs/multi-instance.md). */
const SESSIONS_STREAM = 'STRAND_SESSIONS';
const BALANCER_IMAGE = { tag: 'strand-haproxy:local', context: 'infra/compose/cluster/haproxy' };
const TOKEN_FILE = '/var/lib/strand/gateway/token';
const REQUIRED = process.env.STRAND_COMPOSE_E2E_REQUIRED === '1' || process.argv.includes('--required');

const log = (line: string) => console.log(`[compose:e2e] ${line}`);
const seconds = (ms: number) => Math.round(ms / 100) / 10;

function notRun(reason: string): never {
  if (REQUIRED) {
    console.log(`FAILED: cannot run: ${reason} (STRAND_COMPOSE_E2E_REQUIRED=1)`);
    process.exit(1);
  }
  console.log(`SKIPPED: ${reason}`);
  process.exit(0);
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`check failed: ${what}`);
}

async function main(): Promise<void> {
  const found = await findDockerTools();
  if (!found.ok) notRun(found.reason);
  const { tools } = found;
  log(tools.described);

  const ports = { http: await freePort(), edn: await freePort(), temporal: await freePort(), ui: await freePort(), nats: await freePort(), nats2: await freePort(), nats3: await freePort() };
  const ws = createWorkspace();
  // The clustered stack's gateways share one token, given to both (nothing is generated there).
  const clusterToken = `strand_${randomBytes(32).toString('base64url')}`;
  const compose = new ComposeProject(tools, ROOT, PROJECT, {
    STRAND_PROJECTS_DIR: ws.projects,
    STRAND_SCRIPTS_DIR: ws.scripts,
    STRAND_GATEWAY_PORT: String(ports.http),
    STRAND_EDN_PORT: String(ports.edn),
    STRAND_TEMPORAL_PORT: String(ports.temporal),
    STRAND_TEMPORAL_UI_PORT: String(ports.ui),
    STRAND_NATS_PORT: String(ports.nats),
    STRAND_NATS_2_PORT: String(ports.nats2),
    STRAND_NATS_3_PORT: String(ports.nats3),
    // What the caller's shell may hold must not change the stack under test: generated token, owner, scripted models.
    STRAND_TOKENS: CLUSTER ? `${clusterToken}:e2e` : '',
    STRAND_RUN_AS: '',
    STRAND_DEFAULT_MODEL: '',
    ANTHROPIC_API_KEY: '',
    ANTHROPIC_BASE_URL: '',
    OPENAI_API_KEY: '',
    OPENAI_BASE_URL: '',
  }, COMPOSE_FILE);
  let cleaned: Promise<void> | undefined;
  const cleanup = () => (cleaned ??= compose.down().finally(() => ws.remove()));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      log(`${signal}: removing the compose project ${PROJECT}`);
      void cleanup().finally(() => process.exit(130));
    });
  }

  let ok = false;
  try {
    const missing = await compose.missingImages();
    if (missing.length > 0) {
      await cleanup();
      notRun(`images not on the Docker engine (nothing is pulled): ${missing.join(', ')}`);
    }
    await compose.down(); // whatever an interrupted run left

    let t = Date.now();
    log('docker build -t strand:local .');
    await compose.buildStrandImage();
    if (CLUSTER) {
      log(`docker build -t ${BALANCER_IMAGE.tag} ${BALANCER_IMAGE.context}`);
      await compose.buildImage(BALANCER_IMAGE.tag, BALANCER_IMAGE.context);
    }
    const buildMs = Date.now() - t;
    t = Date.now();
    log(`compose -f ${COMPOSE_FILE} -p ${PROJECT} up -d --wait (projects dir ${ws.projects}, owned by ${ws.uid}:${ws.gid})`);
    await compose.up();
    const upMs = Date.now() - t;
    log(`stack healthy in ${seconds(upMs)} s; ${CLUSTER ? 'balancer' : 'gateway'} http://127.0.0.1:${ports.http}, EDN 127.0.0.1:${ports.edn}`);

    const token = CLUSTER ? clusterToken : await generatedToken(compose);
    const http = strandHttp(`http://127.0.0.1:${ports.http}`, token);
    await http.call('GET', '/healthz', 200, healthyReplySchema);
    check((await http.status('GET', '/api/sessions')) === 200, 'the token opens the REST API');
    check((await http.status('GET', '/api/sessions', '')) === 401, 'no token: 401');
    check((await http.status('GET', '/api/sessions', `${token}x`)) === 401, 'a wrong token: 401');
    await checkEdn(ports.edn, token);
    log(`auth: ${CLUSTER ? 'STRAND_TOKENS on both gateways' : 'token from `compose exec`, printed once in the log'}; HTTP 401 without it; EDN handshake over the published port`);

    const temporalAddress = `127.0.0.1:${ports.temporal}`;
    const figures = await runTurns(http, compose, ws, log, (sid, turn) => workerContainerRunning(compose, temporalAddress, sid, turn));
    const cluster = CLUSTER ? await clusterChecks(http, token, ports, ws.project) : undefined;
    const result = { build_s: seconds(buildMs), up_s: seconds(upMs), ...figures, ...(cluster ? { cluster } : {}) };
    log(`figures: build ${result.build_s} s, up ${result.up_s} s, turn with tools ${figures.first_turn_ms} ms, worker killed → running ${figures.kill_to_worker_running_ms} ms → healthy ${figures.kill_to_worker_healthy_ms} ms, turn resumed ${figures.kill_to_turn_resumed_ms} ms, turn finished ${figures.kill_to_turn_finished_ms} ms after the kill`);
    console.log(`compose-e2e ${JSON.stringify(result)}`);
    ok = true;
  } catch (err) {
    console.log(`FAILED: ${err instanceof Error ? err.message : String(err)}`);
    for (const service of CLUSTER ? ['worker', 'gateway-1', 'gateway-2', 'balancer'] : ['worker', 'gateway']) {
      const out = await compose.logs(service).catch((e: unknown) => String(e));
      console.log(`--- last lines of ${service}'s log ---\n${lastLines(out, 25)}`);
    }
  } finally {
    log(`compose -p ${PROJECT} down -v`);
    await cleanup();
  }
  if (ok) console.log('PASSED');
  process.exit(ok ? 0 : 1);
}

/** The documented way to get the generated token (`compose exec … cat`); the log printed it exactly once. */
async function generatedToken(compose: ComposeProject): Promise<string> {
  const token = (await compose.exec('gateway', ['cat', TOKEN_FILE])).trim();
  check(/^strand_[A-Za-z0-9_-]{43}$/.test(token), `docker compose exec gateway cat ${TOKEN_FILE} gives a generated token`);
  const gatewayLog = await compose.logs('gateway');
  check(gatewayLog.split(token).length - 1 === 1, 'the gateway log shows the generated token exactly once');
  return token;
}

/** The clustered stack's own checks (cluster-checks.ts): WebSocket and EDN through the balancer, 3 replicas everywhere. */
async function clusterChecks(http: StrandHttp, token: string, ports: { http: number; edn: number; nats: number }, project: string) {
  await checkWebSocketTurn(ports.http, token, project);
  log('WebSocket: a chat through the balancer streamed its answer and ended with one chat.done');
  await checkEdnTurn(ports.edn, token, http, project);
  log('EDN: a prompt through the balancer\'s TCP port answered with one assistant/message, then idle');
  const streams = await checkReplicas(`nats://127.0.0.1:${ports.nats}`, [AGENT_EVENTS_STREAM, SESSIONS_STREAM, `KV_${RUNNING_ACTIVITIES_BUCKET}`]);
  log(`NATS: ${streams.length} streams, each with 3 replicas, a leader and 2 current followers: ${streams.map((s) => `${s.stream}@${s.leader}`).join(', ')}`);
  return { streams: streams.map((s) => s.stream), leaders: Object.fromEntries(streams.map((s) => [s.stream, s.leader])) };
}

/** The EDN port is published and behind the same token: a handshake without it fails, with it succeeds. */
async function checkEdn(port: number, token: string): Promise<void> {
  const anonymous = await connectEdnTcp(port);
  try {
    const refused = await anonymous.handshake();
    check(kindOf(refused) === 'error', `an EDN handshake without a token is refused (got ${kindOf(refused)})`);
  } finally {
    anonymous.socket.destroy();
  }
  const client = await connectEdnTcp(port);
  try {
    const answer = await client.handshake({ 'auth-token': token });
    check(kindOf(answer) === 'response', `an EDN handshake with the token is answered (got ${kindOf(answer)})`);
  } finally {
    client.socket.destroy();
  }
}

main().catch((err: unknown) => {
  console.log(`FAILED: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
