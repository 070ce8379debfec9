import { connect, type ConnectionOptions, type NatsConnection } from 'nats';

/**
 * How every strand connection notices a NATS node that went silent: a PING every 2 s, and a
 * connection with 2 PINGs unanswered when the next is due is dropped and made again to another node
 * of the cluster. A node that dies closes its sockets and is left at once; one cut off the network or
 * frozen just stops answering, and at nats.js's defaults (a PING every 2 minutes) a service stayed on
 * it for 4–6 minutes: its subscriptions (a store's request handlers) and JetStream calls dead.
 *
 * With these figures a client leaves a silent node 4–6 s after it stopped answering (2 to 3 intervals,
 * as nats.js counts): about when JetStream has elected new stream leaders on the other nodes. Lower
 * is not safer: a PONG is answered by the server's reader of that connection, not by JetStream, so a
 * busy but working node answers in milliseconds, and a client whose own event loop was blocked reads
 * the PONGs waiting in its socket before its ping timer fires again — but a client that left a node
 * by mistake pays a reconnect, and requests in flight on the old connection time out. The cost is one
 * PING and one PONG (6 bytes each) per connection every 2 s.
 */
export const NATS_LIVENESS = { pingInterval: 2_000, maxPingOut: 2 } as const satisfies ConnectionOptions;

/**
 * Connects to NATS the way a long-running service should: wait for the server on first connect and
 * reconnect forever, so start order and server restarts never kill a service; leave a silent node
 * within seconds (NATS_LIVENESS), and do not wait long on one while reconnecting.
 */
export function connectNats(url: string, name: string, options: Pick<ConnectionOptions, 'noAsyncTraces'> = {}): Promise<NatsConnection> {
  return connect({
    ...options,
    servers: natsServers(url),
    name,
    waitOnFirstConnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // A frozen node accepts a TCP connection and then says nothing: give up on it after 5 s (not
    // nats.js's 20 s) and try the next node.
    timeout: 5_000,
    ...NATS_LIVENESS,
  });
}

/**
 * For a connection whose every request is wrapped and named by its caller (the worker's store calls,
 * KV writes and JetStream publishes): nats.js otherwise captures two stack traces per request (one to
 * append to an error that seldom comes, one for the timeout error made in advance), ~20 µs each on a
 * busy machine, and a worker makes some forty requests per tool turn. Speed over the library's
 * convenience: a timeout still says which subject timed out, only not from where it was sent.
 */
export const NATS_NO_ASYNC_TRACES = { noAsyncTraces: true } as const satisfies ConnectionOptions;

/**
 * The servers of STRAND_NATS_URL: one URL, or several separated by commas (the nodes of a NATS
 * cluster: the client connects to one and moves to another when it fails).
 */
export function natsServers(url: string): string[] {
  return url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
