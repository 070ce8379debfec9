import { createHash } from 'node:crypto';
import { DiscardPolicy, type NatsConnection, type ObjectStore } from 'nats';
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
 * The bucket, with its stream made first when it needs replicas: nats.js copies an object store's
 * `replicas` option into the stream's configuration as it is, a field the server refuses ("unknown
 * field replicas"), so the stream is created here the way nats.js would, with `num_replicas`, and then
 * opened as an object store (which finds it and leaves it alone).
 */
async function openBucket(nc: NatsConnection, replicas: number): Promise<ObjectStore> {
  if (replicas > 1) {
    const jsm = await nc.jetstreamManager();
    const stream = `OBJ_${PROMPT_IMAGES_BUCKET}`;
    try {
      await jsm.streams.info(stream);
    } catch (err) {
      if ((err as Error).message !== 'stream not found') throw err;
      const subjects = [`$O.${PROMPT_IMAGES_BUCKET}.C.>`, `$O.${PROMPT_IMAGES_BUCKET}.M.>`];
      await jsm.streams.add({ name: stream, subjects, num_replicas: replicas, max_age: 0, allow_direct: true, allow_rollup_hdrs: true, discard: DiscardPolicy.New });
    }
  }
  return nc.jetstream().views.os(PROMPT_IMAGES_BUCKET);
}

/**
 * The store on a JetStream object store bucket (file storage, no TTL: an image is part of a
 * conversation and is read again by every later model step). The bucket is created on first use, so
 * a gateway or worker that never sees an image never makes it.
 */
export function createNatsPromptImageStore(nc: NatsConnection): PromptImageStore {
  let bucket: Promise<ObjectStore> | undefined;
  const open = () => {
    bucket ??= openBucket(nc, natsReplicas()).catch((err: unknown) => {
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
