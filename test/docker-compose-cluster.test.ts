import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { composeValidator, forSchema } from './compose-spec';

/**
 * docker-compose.cluster.yml without Docker: valid Compose, and the layout docs/multi-instance.md
 * describes (three routed JetStream nodes, strand's clients on all three with 3 replicas, Temporal's
 * four services apart, two gateways behind the balancer, whose configuration names both).
 * `npm run compose:e2e -- --cluster` runs it for real.
 */
const root = path.resolve(__dirname, '..');
const compose = YAML.parse(fs.readFileSync(path.join(root, 'docker-compose.cluster.yml'), 'utf8'), { merge: true }) as any;
const haproxy = fs.readFileSync(path.join(root, 'infra/compose/cluster/haproxy.cfg'), 'utf8');
const NATS = ['nats-1', 'nats-2', 'nats-3'];
const STRAND = ['store', 'worker', 'gateway-1', 'gateway-2'];

test('is valid against the Compose Specification schema', () => {
  const validate = composeValidator();
  const ok = validate(forSchema(compose));
  expect(validate.errors ?? []).toEqual([]);
  expect(ok).toBe(true);
});

test('every long-running service has a health check; every dependency exists with a known condition', () => {
  for (const [name, svc] of Object.entries<any>(compose.services)) {
    if (svc.restart !== 'no') expect([name, Array.isArray(svc.healthcheck?.test)]).toEqual([name, true]);
    for (const [dep, cond] of Object.entries<any>(svc.depends_on ?? {})) {
      expect([name, Object.keys(compose.services)]).toEqual([name, expect.arrayContaining([dep])]);
      expect(['service_started', 'service_healthy', 'service_completed_successfully']).toContain(cond.condition);
    }
  }
});

test('three JetStream nodes, each routed to all three with its own volume', () => {
  const volumes = new Set<string>();
  for (const node of NATS) {
    const cmd: string[] = compose.services[node].command;
    expect(cmd).toEqual(expect.arrayContaining(['-js', '-n', node, '--cluster_name', 'strand']));
    expect(cmd[cmd.indexOf('--routes') + 1]!.split(',').sort()).toEqual(NATS.map((n) => `nats://${n}:6222`));
    const volume = String(compose.services[node].volumes[0]).split(':')[0]!;
    expect(Object.keys(compose.volumes)).toContain(volume);
    volumes.add(volume);
  }
  expect(volumes.size).toBe(3);
});

test('strand\'s services reach all three nodes and create every stream with 3 replicas', () => {
  for (const name of STRAND) {
    const env = compose.services[name].environment;
    expect([name, env.STRAND_NATS_URL.split(',').sort()]).toEqual([name, NATS.map((n) => `nats://${n}:4222`)]);
    expect([name, env.STRAND_NATS_REPLICAS]).toEqual([name, '3']);
    expect([name, env.STRAND_TEMPORAL_ADDRESS]).toEqual([name, 'temporal-frontend:7233']);
  }
  expect(compose.services.store.environment.STRAND_STORE_ADAPTER).toBe('jetstream');
  expect(compose.services.store.deploy.replicas).toBe(2);
  expect(compose.services.worker.deploy.replicas).toBe(2);
});

test('Temporal runs as four services, one per container, after a one-shot schema setup', () => {
  for (const role of ['frontend', 'history', 'matching', 'worker']) {
    const svc = compose.services[`temporal-${role}`];
    expect(svc.environment.TEMPORAL_SERVICE).toBe(role);
    expect(svc.entrypoint.join(' ')).toContain('start --service $$TEMPORAL_SERVICE');
  }
  expect(compose.services['temporal-history'].depends_on['temporal-schema'].condition).toBe('service_completed_successfully');
  expect(compose.services['temporal-setup'].depends_on['temporal-frontend'].condition).toBe('service_healthy');
});

test('two gateways with the same required tokens behind the balancer, which names both on HTTP and EDN', () => {
  for (const gw of ['gateway-1', 'gateway-2']) expect(compose.services[gw].environment.STRAND_TOKENS).toMatch(/^\$\{STRAND_TOKENS:\?/);
  expect(compose.services.balancer.ports).toEqual(['127.0.0.1:${STRAND_GATEWAY_PORT:-9420}:9420', '127.0.0.1:${STRAND_EDN_PORT:-9421}:9421']);
  expect(haproxy).toMatch(/backend gateways_http\n\s+mode http[\s\S]*server gateway-1 gateway-1:9420\n\s+server gateway-2 gateway-2:9420/);
  expect(haproxy).toMatch(/backend gateways_edn\n\s+mode tcp[\s\S]*server gateway-1 gateway-1:9421\n\s+server gateway-2 gateway-2:9421/);
  expect(haproxy).toMatch(/timeout tunnel 1h/);
  // The HTTP backend checks each gateway's own /livez, never /healthz (shared dependencies).
  expect(haproxy).toMatch(/backend gateways_http\n[\s\S]*option httpchk\n\s+http-check send meth GET uri \/livez\n\s+http-check expect status 200/);
  expect(haproxy).not.toMatch(/uri \/healthz/);
});
