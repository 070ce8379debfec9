import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, stackConfigFromEnv, type ServiceCode } from './stack-config';
import { serviceSpecs } from './stack-specs';

/**
 * The Temporal settings a turn's latency depends on (bench:turns, bench:agent): without them each hop
 * of a turn waits for the next transfer-queue read (up to 50 ms) and each model step for its own task.
 * Both ways strand runs Temporal carry them: the dev server of `npm start` and the compose file's server.
 */
const LATENCY_SETTINGS = { 'system.enableActivityEagerExecution': true, 'history.transferProcessorMaxPollRPS': 1000 };

test('the dev server of `npm start` gets the latency settings', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-specs-'));
  try {
    const specs = await serviceSpecs({ dataDir, host: '127.0.0.1', ports: { temporal: 7233, temporalUi: 8233, nats: 4222, gateway: 9420 }, ui: false, serviceEnv: {} });
    const args = specs.temporal.args;
    const values = args.flatMap((a, i) => (args[i - 1] === '--dynamic-config-value' ? [a] : []));
    for (const [key, value] of Object.entries(LATENCY_SETTINGS)) expect(values).toContain(`${key}=${value}`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the compose file\'s Temporal server gets the same latency settings', () => {
  const config = parse(fs.readFileSync(path.join(REPO_ROOT, 'infra/docker/temporal/dynamicconfig.yaml'), 'utf8')) as Record<string, Array<{ value: unknown }>>;
  for (const [key, value] of Object.entries(LATENCY_SETTINGS)) expect(config[key]?.[0]?.value).toBe(value);
});

test('the gateway is told the Temporal UI address when the stack runs the UI, and nothing when it does not', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-specs-'));
  const saved = process.env.STRAND_TEMPORAL_UI_URL;
  delete process.env.STRAND_TEMPORAL_UI_URL;
  try {
    const config = { dataDir, host: '127.0.0.1', ports: { temporal: 7233, temporalUi: 18233, nats: 4222, gateway: 9420 }, serviceEnv: {} };
    expect((await serviceSpecs({ ...config, ui: true })).gateway.env?.STRAND_TEMPORAL_UI_URL).toBe('http://127.0.0.1:18233');
    expect((await serviceSpecs({ ...config, ui: false })).gateway.env?.STRAND_TEMPORAL_UI_URL).toBeUndefined();
  } finally {
    if (saved !== undefined) process.env.STRAND_TEMPORAL_UI_URL = saved;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('which code the services run', () => {
  const ours = ['store', 'worker', 'gateway'] as const;
  const withSpecs = async (code: ServiceCode | undefined, check: (specs: Awaited<ReturnType<typeof serviceSpecs>>) => void) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-specs-'));
    try {
      const base = { dataDir, host: '127.0.0.1', ports: { temporal: 7233, temporalUi: 8233, nats: 4222, gateway: 9420 }, ui: false, serviceEnv: {} };
      check(await serviceSpecs(code ? { ...base, code } : base));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  };

  test('`npm start` (stackConfigFromEnv) runs the built services, STRAND_FROM_SOURCE=1 the TypeScript sources', () => {
    expect(stackConfigFromEnv({}).code).toBe('built');
    expect(stackConfigFromEnv({ STRAND_FROM_SOURCE: '1' }).code).toBe('source');
    expect(stackConfigFromEnv({ STRAND_FROM_SOURCE: 'true' }).code).toBe('source');
    expect(stackConfigFromEnv({ STRAND_FROM_SOURCE: '0' }).code).toBe('built');
  });

  test('built: node runs the bundles of dist/services, with no tsx loader; the binaries under the built watchdog', async () => {
    await withSpecs('built', (specs) => {
      const bundle = (name: string) => path.join(REPO_ROOT, 'dist', 'services', `${name}.js`);
      const main = { store: 'store', worker: 'worker', gateway: 'gateway' };
      for (const name of ours) expect([name, specs[name].args]).toEqual([name, [bundle('service-entry'), bundle(main[name])]]);
      for (const name of ['nats', 'temporal'] as const) expect([name, specs[name].args[0]]).toEqual([name, bundle('watchdog')]);
      for (const spec of Object.values(specs)) expect([spec.name, spec.args.includes('tsx')]).toEqual([spec.name, false]);
    });
  });

  test('from source (and for a config that does not say, as tests start it): tsx runs the TypeScript', async () => {
    for (const code of ['source', undefined] as const) {
      await withSpecs(code, (specs) => {
        expect(specs.gateway.args).toEqual(['--import', 'tsx', path.join(REPO_ROOT, 'infra/stack/service-entry.ts'), path.join(REPO_ROOT, 'services/gateway/main.ts')]);
        expect(specs.worker.args.at(-1)).toBe(path.join(REPO_ROOT, 'services/worker/main.ts'));
        expect(specs.store.args.at(-1)).toBe(path.join(REPO_ROOT, 'services/session-store/main.ts'));
        expect(specs.nats.args.slice(0, 3)).toEqual(['--import', 'tsx', path.join(REPO_ROOT, 'infra/stack/watchdog.ts')]);
      });
    }
  });
});
