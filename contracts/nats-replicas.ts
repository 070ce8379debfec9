/**
 * How many copies of each JetStream stream, key-value bucket and object store strand creates
 * (`num_replicas`): 1 on a single nats-server (the default), 3 on a three-node NATS cluster so that
 * every stream survives the loss of one node. Read by whoever creates a stream or bucket; a stream
 * that already exists keeps the replicas it was made with.
 */
export function natsReplicas(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.STRAND_NATS_REPLICAS?.trim();
  if (!raw) return 1;
  const n = Number(raw);
  // JetStream allows 1 to 5 replicas.
  if (!Number.isInteger(n) || n < 1 || n > 5) throw new Error(`STRAND_NATS_REPLICAS=${raw} is not an integer from 1 to 5`);
  return n;
}
