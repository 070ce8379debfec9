import type { NatsConnection, Subscription } from 'nats';
import { StoreError, StoreErrorCode, type StoreEnvelope } from '../../contracts/session-store/errors';
import { storeFunctions, type ParsedRequest, type StoreFunction } from '../../contracts/session-store/functions';
import { STORE_QUEUE_GROUP, storeEventSubject, storeFunctionSubject } from '../../contracts/session-store/subjects';
import type { Logger } from '../common/logger';
import type { StoreConfig } from './config';
import type { SessionStore } from './domain/store';
import type { IdsAndClock } from './domain/ids';
import type { StoragePort } from './storage/port';
import { StoreRuntime } from './runtime';

/** Largest request body accepted; bigger ones are rejected as invalid before parsing. */
const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface StoreServiceOptions {
  nc: NatsConnection;
  config: StoreConfig;
  log: Logger;
  ids?: IdsAndClock;
  /** Overrides the adapter the config names (unit tests pass memory storage). */
  storage?: StoragePort;
  maxBodyBytes?: number;
}

export interface RunningStore {
  runtime: StoreRuntime;
  readonly store: SessionStore;
  stop(): Promise<void>;
}

function describeIssues(err: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return err.issues.map((i) => `${i.path.map(String).join('.') || 'request'}: ${i.message}`).join('; ');
}

/**
 * Serves every store function on `session.<function>` in a queue group: parse, validate with the
 * function's zod schema (shape errors never reach the domain), run, reply with the envelope.
 * Unknown errors are logged and answered as `session/storage` without internals.
 */
export async function startStoreService(opts: StoreServiceOptions): Promise<RunningStore> {
  const { nc, log } = opts;
  const maxBody = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const emit = (type: Parameters<typeof storeEventSubject>[0], sessionId: string, payload: Record<string, unknown>) => {
    try {
      nc.publish(storeEventSubject(type, sessionId), JSON.stringify(payload));
    } catch (err) {
      log.warn({ err, type, sessionId }, 'could not publish a store event');
    }
  };
  const runtime = await StoreRuntime.start(opts.config, emit, log, { ...(opts.ids ? { ids: opts.ids } : {}), ...(opts.storage ? { storage: opts.storage } : {}), nc });
  const store = () => runtime.store;

  /** Reads first take what other instances committed (shared storage; nothing to do otherwise): a session's read, its session's. */
  const caughtUp =
    <R extends { session_id: string }, T>(read: (r: R) => T) =>
    async (r: R) => {
      await store().catchUp(r.session_id);
      return read(r);
    };

  const handlers: Record<StoreFunction, (req: never) => unknown> = {
    create: (r) => store().create(r),
    ensure: (r) => store().ensure(r),
    get: caughtUp((r: ParsedRequest<'get'>) => store().get(r)),
    // A list first takes what other instances committed to any session.
    list: async (r: ParsedRequest<'list'>) => {
      await store().catchUp();
      return store().list(r);
    },
    setMeta: (r) => store().setMeta(r),
    setStatus: (r) => store().setStatus(r),
    delete: (r) => store().delete(r),
    append: (r) => store().append(r),
    appendMany: (r) => store().appendMany(r),
    updateMessage: (r) => store().updateMessage(r),
    fork: (r) => store().fork(r),
    setActiveLeaf: (r) => store().setActiveLeaf(r),
    getMessage: caughtUp((r: ParsedRequest<'getMessage'>) => store().getMessage(r)),
    messages: caughtUp((r: ParsedRequest<'messages'>) => store().messages(r)),
    configStatus: () => runtime.configStatus(),
  };

  const subs: Subscription[] = [];
  for (const fn of Object.keys(storeFunctions) as StoreFunction[]) {
    const def = storeFunctions[fn];
    const sub = nc.subscribe(storeFunctionSubject(def.wire), {
      queue: STORE_QUEUE_GROUP,
      callback: (err, msg) => {
        if (err) return log.warn({ err }, 'subscription error');
        void (async () => {
          let reply: StoreEnvelope<unknown>;
          try {
            if (msg.data.length > maxBody) throw new StoreError(StoreErrorCode.INVALID_REQUEST, `request body is ${msg.data.length} bytes; the limit is ${maxBody}`);
            let body: unknown;
            try {
              body = msg.data.length === 0 ? {} : JSON.parse(new TextDecoder().decode(msg.data));
            } catch {
              throw new StoreError(StoreErrorCode.INVALID_REQUEST, 'request body is not valid JSON');
            }
            const parsed = def.request.safeParse(body);
            if (!parsed.success) throw new StoreError(StoreErrorCode.INVALID_REQUEST, describeIssues(parsed.error));
            reply = { ok: true, result: (await handlers[fn](parsed.data as never)) ?? null };
          } catch (e) {
            if (e instanceof StoreError) reply = { ok: false, error: { code: e.code, message: e.message } };
            else {
              log.error({ err: e, fn }, 'store function failed');
              reply = { ok: false, error: { code: StoreErrorCode.STORAGE, message: 'internal store error (see the store log)' } };
            }
          }
          msg.respond(JSON.stringify(reply));
        })();
      },
    });
    subs.push(sub);
  }
  return {
    runtime,
    get store() {
      return runtime.store;
    },
    async stop() {
      for (const s of subs) s.unsubscribe();
      await runtime.close();
    },
  };
}
