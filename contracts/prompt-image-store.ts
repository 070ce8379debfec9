import { createHash } from 'node:crypto';
import type { NatsConnection, ObjectStore } from 'nats';
import { natsReplicas } from './nats-replicas';
import { PROMPT_IMAGES_BUCKET, promptImageObjectName, type PromptImageMediaType, type PromptImageRef } from './prompt-images';

/**
 * Where prompt images' bytes live (contracts/prompt-images.ts says why not in workflow payloads or the
 * store's messages): the gateway puts them, the worker's model step gets them. Shared here as the
 * store client is, so both sides agree on the bucket and the names.
 */
export interface PromptImageStore {
  /** Stores the bytes (once per distinct image: names are their SHA-256) and answers the reference the prompt carries. */
  put(bytes: Uint8Array, mime: PromptImageMediaType): Promise<PromptImageRef>;
  /** The bytes of a reference, or null when the bucket no longer has them. */
  get(ref: string): Promise<Uint8Array | null>;
}

function promptImageRefOf(bytes: Uint8Array, mime: PromptImageMediaType): PromptImageRef {
  return { ref: promptImageObjectName(createHash('sha256').update(bytes).digest('hex')), mime, bytes: bytes.byteLength };
}

/**
 * The store on a JetStream object store bucket (file storage, no TTL: an image is part of a
 * conversation and is read again by every later model step). The bucket is created on first use, so
 * a gateway or worker that never sees an image never makes it.
 */
export function createNatsPromptImageStore(nc: NatsConnection): PromptImageStore {
  let bucket: Promise<ObjectStore> | undefined;
  const open = () => {
    bucket ??= nc.jetstream().views.os(PROMPT_IMAGES_BUCKET, { replicas: natsReplicas() }).catch((err: unknown) => {
      bucket = undefined;
      throw err;
    });
    return bucket;
  };
  return {
    async put(bytes, mime) {
      const ref = promptImageRefOf(bytes, mime);
      const os = await open();
      // Content-addressed: the same bytes are already there under this name (a retried prompt, a pasted screenshot twice).
      if (!(await os.info(ref.ref))) await os.putBlob({ name: ref.ref, description: mime }, bytes);
      return ref;
    },
    async get(ref) {
      return (await open()).getBlob(ref);
    },
  };
}

/** The same contract in memory, for unit tests and gateways without NATS. */
export function createMemoryPromptImageStore(): PromptImageStore & { size(): number } {
  const objects = new Map<string, Uint8Array>();
  return {
    async put(bytes, mime) {
      const ref = promptImageRefOf(bytes, mime);
      objects.set(ref.ref, bytes.slice());
      return ref;
    },
    async get(ref) {
      return objects.get(ref)?.slice() ?? null;
    },
    size: () => objects.size,
  };
}
