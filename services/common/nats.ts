import { connect, type NatsConnection } from 'nats';

/**
 * Connects to NATS the way a long-running service should: wait for the server on first connect and
 * reconnect forever, so start order and server restarts never kill a service.
 */
export function connectNats(url: string, name: string): Promise<NatsConnection> {
  return connect({
    servers: url,
    name,
    waitOnFirstConnect: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
  });
}
