import type { NatsConnection, Subscription } from 'nats';
import { StoreClient } from './client';
import { StoreError, StoreErrorCode } from './errors';
import { bindingFilterSchemas, storeEventPayloadSchemas, type BindingFilter, type StoreEventPayload } from './events';
import { encodeSubjectToken, type StoreEventType } from './subjects';

/** A live binding; `unbind` stops delivery to its handler. */
export interface StoreEventBinding {
  unbind(): void;
}

export interface BindOptions {
  /** Called when a handler throws or a payload is malformed; delivery to the binding goes on. */
  onError?: (err: unknown) => void;
}

/** Subset equality: every key of `filter` equals the stored value (compared as JSON). */
export function metadataMatches(filter: Record<string, unknown> | undefined, metadata: Record<string, unknown> | undefined): boolean {
  if (!filter) return true;
  return Object.entries(filter).every(([k, v]) => JSON.stringify(metadata?.[k]) === JSON.stringify(v));
}

/** Validates a binding's filter for an event type, rejecting malformed configs at bind time. */
export function parseBindingFilter<T extends StoreEventType>(type: T, filter: unknown): BindingFilter<T> {
  const schema = bindingFilterSchemas[type];
  if (!schema) throw new StoreError(StoreErrorCode.INVALID_REQUEST, `unknown store event type "${String(type)}"`);
  const parsed = schema.safeParse(filter ?? {});
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => (i.code === 'unrecognized_keys' ? `${i.keys.join(', ')} not allowed on ${type} bindings` : `${i.path.join('.') || 'filter'}: ${i.message}`));
    throw new StoreError(StoreErrorCode.INVALID_REQUEST, `invalid ${type} binding: ${why.join('; ')}`);
  }
  return parsed.data as BindingFilter<T>;
}

/**
 * Binds `handler` to one store event type with a filter `{session_id?, roles?, metadata?}` (`{}`
 * receives everything). Each binding is its own NATS subscription, so bindings never share or steal
 * deliveries. Metadata filters need the session's metadata: `created`, `meta-updated` and `deleted`
 * carry it; for the other types the binding looks it up with `session.get` and keeps it current from
 * `meta-updated` events. Delivery is at-least-once and unordered, as the store promises.
 */
export function bindStoreEvents<T extends StoreEventType>(
  nc: NatsConnection,
  type: T,
  filter: BindingFilter<T>,
  handler: (payload: StoreEventPayload<T>) => void | Promise<void>,
  options: BindOptions = {},
): StoreEventBinding {
  const f = parseBindingFilter(type, filter) as { session_id?: string; roles?: string[]; metadata?: Record<string, unknown> };
  const onError = options.onError ?? (() => undefined);
  const subject = `session.evt.${type}.${f.session_id !== undefined ? encodeSubjectToken(f.session_id) : '*'}`;
  const subs: Subscription[] = [];
  const metadataCache = new Map<string, Record<string, unknown> | undefined>();
  const store = new StoreClient(nc);
  const carriesMetadata = type === 'created' || type === 'meta-updated' || type === 'deleted';

  if (f.metadata && !carriesMetadata) {
    subs.push(
      nc.subscribe('session.evt.meta-updated.*', {
        callback: (_err, m) => {
          const p = storeEventPayloadSchemas['meta-updated'].safeParse(m.json());
          if (p.success) metadataCache.set(p.data.session_id, p.data.metadata);
        },
      }),
    );
  }

  async function sessionMetadata(sessionId: string): Promise<Record<string, unknown> | undefined> {
    if (metadataCache.has(sessionId)) return metadataCache.get(sessionId);
    const got = await store.get({ session_id: sessionId });
    metadataCache.set(sessionId, got?.meta.metadata);
    return got?.meta.metadata;
  }

  async function deliver(raw: unknown): Promise<void> {
    const parsed = storeEventPayloadSchemas[type].safeParse(raw);
    if (!parsed.success) throw new Error(`malformed ${type} event: ${parsed.error.issues[0]?.message}`);
    const payload = parsed.data as StoreEventPayload<T> & { message?: { role: string }; metadata?: Record<string, unknown>; session_id: string };
    if (f.roles && !(payload.message && f.roles.includes(payload.message.role))) return;
    if (f.metadata) {
      const md = carriesMetadata ? payload.metadata : await sessionMetadata(payload.session_id);
      if (!metadataMatches(f.metadata, md)) return;
    }
    await handler(payload);
  }

  subs.push(
    nc.subscribe(subject, {
      callback: (err, m) => {
        if (err) return onError(err);
        let raw: unknown;
        try {
          raw = m.json();
        } catch (e) {
          return onError(e);
        }
        deliver(raw).catch(onError);
      },
    }),
  );

  return {
    unbind() {
      for (const s of subs) s.unsubscribe();
    },
  };
}
