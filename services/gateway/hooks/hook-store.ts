import type { NatsConnection } from 'nats';
import { madeOnceItWorks } from '../../../contracts/until-it-works';
import { hookDefinitionSchema, hookDeliveryRecordSchema, type HookDefinition, type HookDeliveryRecord } from '../../../contracts/job-hook';

/**
 * Hook definitions and their recent deliveries in a JetStream key-value bucket, so they survive a
 * gateway's restart and every gateway reads the same ones (as the MCP status and the provider backoff
 * are shared). A definition names the environment variable holding its secret, never the secret.
 * Keys: `def.<name>` (the definition) and `log.<name>` (the last deliveries, newest first).
 */
const HOOKS_BUCKET = 'strand_hooks';
/** Deliveries kept per hook for `GET /api/hooks/{name}`. */
const RECENT_DELIVERIES = 20;
/** Compare-and-set rounds for the delivery log before it gives up (it is a log for people, not a record anything depends on). */
const LOG_CAS_ROUNDS = 8;

export interface HookStore {
  get(name: string): Promise<HookDefinition | undefined>;
  put(def: HookDefinition): Promise<void>;
  list(): Promise<HookDefinition[]>;
  /** True when there was one to delete. */
  delete(name: string): Promise<boolean>;
  deliveries(name: string): Promise<HookDeliveryRecord[]>;
  record(name: string, delivery: HookDeliveryRecord): Promise<void>;
}

export function natsHookStore(nc: NatsConnection): HookStore {
  const kv = madeOnceItWorks(() => nc.jetstream().views.kv(HOOKS_BUCKET, { history: 1 }));
  const read = async <T>(key: string, parse: (v: unknown) => T): Promise<{ value: T; revision: number } | { value: undefined; revision: number | undefined }> => {
    const entry = await (await kv()).get(key);
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) return { value: undefined, revision: entry?.revision };
    return { value: parse(entry.json()), revision: entry.revision };
  };
  const readLog = (name: string) => read(`log.${name}`, (v) => hookDeliveryRecordSchema.array().parse(v));
  return {
    async get(name) {
      return (await read(`def.${name}`, (v) => hookDefinitionSchema.parse(v))).value;
    },
    async put(def) {
      await (await kv()).put(`def.${def.name}`, JSON.stringify(def));
    },
    async list() {
      const names: string[] = [];
      for await (const key of await (await kv()).keys('def.*')) names.push(key.slice('def.'.length));
      const defs = await Promise.all(names.sort().map((n) => this.get(n)));
      return defs.filter((d): d is HookDefinition => d !== undefined);
    },
    async delete(name) {
      const existed = (await this.get(name)) !== undefined;
      const bucketNow = await kv();
      await bucketNow.purge(`def.${name}`);
      await bucketNow.purge(`log.${name}`);
      return existed;
    },
    async deliveries(name) {
      return (await readLog(name)).value ?? [];
    },
    async record(name, delivery) {
      const key = `log.${name}`;
      for (let round = 0; round < LOG_CAS_ROUNDS; round++) {
        const { value, revision } = await readLog(name);
        const next = JSON.stringify([delivery, ...(value ?? [])].slice(0, RECENT_DELIVERIES));
        try {
          if (revision === undefined) await (await kv()).create(key, next);
          else await (await kv()).update(key, next, revision);
          return;
        } catch {
          // Another gateway wrote in between: read again.
        }
      }
      throw new Error(`the delivery log of hook ${name} stayed contended for ${LOG_CAS_ROUNDS} rounds`);
    },
  };
}
