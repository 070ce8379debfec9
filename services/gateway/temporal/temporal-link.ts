import { Client, Connection } from '@temporalio/client';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { tracingClientInterceptors } from '../../common/tracing-temporal';

/**
 * A Temporal client that connects in the background and keeps trying, so the gateway can start (and
 * answer /healthz with 503) before Temporal is up. Callers get the client or a clear "unavailable".
 */
export class TemporalLink {
  private client: Client | undefined;
  private connection: Connection | undefined;
  private lastError = 'not connected yet';
  private closed = false;
  private readonly connecting: Promise<void>;

  constructor(
    private readonly address: string,
    private readonly namespace: string,
  ) {
    this.connecting = this.connectLoop();
  }

  private async connectLoop(): Promise<void> {
    while (!this.closed && !this.client) {
      try {
        this.connection = await Connection.connect({ address: this.address, connectTimeout: 2_000 });
        // A query of a closed run is rejected at once instead of replaying its history: closed means idle.
        // With tracing on, each command's span context travels to the workflow in Temporal's headers.
        this.client = new Client({ connection: this.connection, namespace: this.namespace, workflow: { queryRejectCondition: 'NOT_OPEN' }, interceptors: tracingClientInterceptors() });
      } catch (err) {
        this.lastError = (err as Error).message;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** The client, or undefined while Temporal is unreachable. */
  get current(): Client | undefined {
    return this.client;
  }

  get unavailableReason(): string {
    return `Temporal at ${this.address} is not reachable: ${this.lastError}`;
  }

  /**
   * Not connected (yet): a 503 saying why, never a 500. A gateway restarted under load can answer its
   * first requests before its background connection has succeeded (chaos gateway-tool, load 30).
   */
  private unavailable(): StrandError {
    return new StrandError(ErrorCode.UNAVAILABLE, this.unavailableReason);
  }

  /** Asks the server something cheap, within `timeoutMs`. */
  async ping(timeoutMs: number): Promise<void> {
    const connection = this.connection;
    if (!connection) throw this.unavailable();
    await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
  }

  /** Runs a Temporal call that must answer within `timeoutMs` (an outage then fails fast, not after ~20 s). */
  async withDeadline<T>(timeoutMs: number, fn: () => Promise<T>): Promise<T> {
    const connection = this.connection;
    if (!connection) throw this.unavailable();
    return connection.withDeadline(Date.now() + timeoutMs, fn);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connection?.close();
    await this.connecting.catch(() => undefined);
  }
}

/** The link's client, or the request fails as UNAVAILABLE saying why: what every service that talks to Temporal starts with. */
export function connectedClient(temporal: Pick<TemporalLink, 'current' | 'unavailableReason'>): Client {
  const client = temporal.current;
  if (!client) throw new StrandError(ErrorCode.UNAVAILABLE, temporal.unavailableReason);
  return client;
}
