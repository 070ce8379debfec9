import { connect, type NatsConnection } from 'nats';

/**
 * Connects to NATS the way a long-running service should: wait for the server on first connect and
 * reconnect forever, so start order and server restarts never kill a service.
 */
export function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({
    servers: natsServers(url),
    name,
    waitOnFirstConnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
}

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
