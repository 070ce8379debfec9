import fs from 'node:fs';
import { signHookBody } from '../../contracts/job-hook-signature';
import { gatewayApi, gatewayUrl } from './gateway-api';
import { say } from './safe-output';

/** `strand hook …` as cli-args.ts parses it. */
export type HookCommand =
  | { action: 'list' }
  | { action: 'show' | 'delete'; name: string }
  | { action: 'define'; name: string; file: string }
  | { action: 'sign'; name: string; file: string; secretEnv?: string };

interface HookDefinition {
  name: string;
  secret_env: string;
  key?: string;
  supersede: string;
  updated_at: string;
}

const api = () => gatewayApi(15_000);

const route = (name: string) => `/api/hooks/${encodeURIComponent(name)}`;

function readJsonFile(file: string): unknown {
  const text = fs.readFileSync(file, 'utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not JSON: ${(err as Error).message}`);
  }
}

/**
 * `strand hook define <name> <file.json> | list | show <name> | delete <name> | sign <name> <body-file>`
 * (docs/jobs.md, "Triggers"): hooks through the gateway (STRAND_TOKEN as the bearer token), and the
 * signature header a sender must put on a body, to test a receiver or a forge's setup. `sign` reads
 * the secret from this shell's environment variable of the name the hook gives (or --secret-env's).
 */
export async function hook(cmd: HookCommand): Promise<void> {
  switch (cmd.action) {
    case 'list': {
      const { hooks } = await api().call<{ hooks: HookDefinition[] }>('GET', '/api/hooks');
      if (hooks.length === 0) return say('no hooks');
      say(['hook'.padEnd(40), 'key'.padEnd(16), 'supersede'.padEnd(9), 'secret_env'.padEnd(28), 'updated'].join('  '));
      for (const h of hooks) say([h.name.padEnd(40), (h.key ?? '-').padEnd(16), h.supersede.padEnd(9), h.secret_env.padEnd(28), h.updated_at].join('  '));
      return;
    }
    case 'show':
      say(JSON.stringify(await api().call('GET', route(cmd.name)), null, 2));
      return;
    case 'delete':
      await api().call('DELETE', route(cmd.name));
      say(`deleted hook ${cmd.name}`);
      return;
    case 'define': {
      const { hook: def } = await api().call<{ hook: HookDefinition }>('PUT', route(cmd.name), readJsonFile(cmd.file));
      say(`defined hook ${def.name}: deliveries go to ${gatewayUrl()}${route(def.name)}, signed with the secret in ${def.secret_env}`);
      return;
    }
    case 'sign': {
      const body = fs.readFileSync(cmd.file);
      const secretEnv = cmd.secretEnv ?? (await api().call<{ hook: HookDefinition }>('GET', route(cmd.name))).hook.secret_env;
      const secret = process.env[secretEnv];
      if (!secret) throw new Error(`${secretEnv} is not set in this shell: set it to hook ${cmd.name}'s secret`);
      say(`X-Strand-Signature: ${signHookBody(secret, body)}`);
      return;
    }
  }
}
