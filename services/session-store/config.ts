import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';

/** The store's configuration: adapter and list limits (docs/store.md, "Configuration"). */
const storeConfigSchema = z
  .strictObject({
    adapter: z.discriminatedUnion('name', [
      z.strictObject({ name: z.literal('fs'), config: z.strictObject({ data_dir: z.string().min(1) }) }),
      z.strictObject({
        name: z.literal('jetstream'),
        config: z
          .strictObject({
            stream: z.string().regex(/^[A-Za-z0-9_-]+$/).optional(),
            subject_prefix: z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/).optional(),
            replicas: z.number().int().min(1).max(5).optional(),
          })
          .default({}),
      }),
    ]),
    default_list_limit: z.number().int().positive().default(50),
    max_list_limit: z.number().int().positive().default(500),
  })
  .refine((c) => c.default_list_limit <= c.max_list_limit, { message: 'default_list_limit must not exceed max_list_limit' });
export type StoreConfig = z.infer<typeof storeConfigSchema>;

const DEFAULT_DATA_DIR = path.join('.strand', 'data', 'store');

function intFromEnv(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name}=${raw} is not an integer`);
  return n;
}

/**
 * Reads the configuration: the file named by STRAND_STORE_CONFIG (YAML or JSON, optional), then the
 * environment on top (STRAND_STORE_ADAPTER, STRAND_STORE_DATA_DIR, STRAND_STORE_DEFAULT_LIST_LIMIT,
 * STRAND_STORE_MAX_LIST_LIMIT). Throws a readable error when the result is not valid.
 */
export function loadStoreConfig(env: NodeJS.ProcessEnv = process.env): StoreConfig {
  let fromFile: Record<string, unknown> = {};
  const file = env.STRAND_STORE_CONFIG?.trim();
  if (file) {
    const text = fs.readFileSync(file, 'utf8');
    const parsed: unknown = YAML.parse(text);
    if (parsed !== null && (typeof parsed !== 'object' || Array.isArray(parsed))) throw new Error(`${file}: expected a mapping at the top level`);
    fromFile = (parsed ?? {}) as Record<string, unknown>;
  }
  const merged: Record<string, unknown> = { ...fromFile };
  const adapterName = env.STRAND_STORE_ADAPTER?.trim();
  const dataDir = env.STRAND_STORE_DATA_DIR?.trim();
  const fileAdapter = fromFile.adapter as { name?: string; config?: Record<string, unknown> } | undefined;
  const name = adapterName || fileAdapter?.name || 'fs';
  const adapterConfig = name === fileAdapter?.name ? { ...(fileAdapter?.config ?? {}) } : {};
  if (name === 'fs') adapterConfig.data_dir = dataDir || (adapterConfig.data_dir as string | undefined) || DEFAULT_DATA_DIR;
  merged.adapter = { name, config: adapterConfig };
  const def = intFromEnv(env, 'STRAND_STORE_DEFAULT_LIST_LIMIT');
  const max = intFromEnv(env, 'STRAND_STORE_MAX_LIST_LIMIT');
  if (def !== undefined) merged.default_list_limit = def;
  if (max !== undefined) merged.max_list_limit = max;
  const result = storeConfigSchema.safeParse(merged);
  if (!result.success) {
    throw new Error(`invalid store configuration: ${result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  }
  return result.data;
}
