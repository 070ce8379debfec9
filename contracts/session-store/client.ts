import type { NatsConnection } from 'nats';
import { StoreError, StoreErrorCode, type StoreEnvelope } from './errors';
import { storeFunctions, type StoreFunction, type StoreReply, type StoreRequest } from './functions';
import { storeFunctionSubject } from './subjects';

/**
 * Typed client of the session store over NATS request/reply. Each method sends the request to
 * `session.<function>` and resolves to the reply, or throws StoreError with the wire code. A store
 * that does not answer (no responders, timeout) is `session/storage`: retryable.
 */
export class StoreClient {
  private readonly timeoutMs: number;

  constructor(
    private readonly nc: NatsConnection,
    opts: { timeoutMs?: number } = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 5_000;
  }

  private async call<F extends StoreFunction>(fn: F, request: StoreRequest<F>): Promise<StoreReply<F>> {
    const subject = storeFunctionSubject(storeFunctions[fn].wire);
    let body: StoreEnvelope<StoreReply<F>>;
    try {
      const msg = await this.nc.request(subject, JSON.stringify(request), { timeout: this.timeoutMs });
      body = msg.json<StoreEnvelope<StoreReply<F>>>();
    } catch (err) {
      const reason = (err as Error).message;
      throw new StoreError(StoreErrorCode.STORAGE, `the session store did not answer ${subject} (${reason})`, { cause: err });
    }
    if (!body.ok) throw new StoreError(body.error.code, body.error.message);
    return body.result;
  }

  create = (r: StoreRequest<'create'>) => this.call('create', r);
  ensure = (r: StoreRequest<'ensure'>) => this.call('ensure', r);
  get = (r: StoreRequest<'get'>) => this.call('get', r);
  list = (r: StoreRequest<'list'>) => this.call('list', r);
  setMeta = (r: StoreRequest<'setMeta'>) => this.call('setMeta', r);
  setStatus = (r: StoreRequest<'setStatus'>) => this.call('setStatus', r);
  delete = (r: StoreRequest<'delete'>) => this.call('delete', r);
  append = (r: StoreRequest<'append'>) => this.call('append', r);
  appendMany = (r: StoreRequest<'appendMany'>) => this.call('appendMany', r);
  updateMessage = (r: StoreRequest<'updateMessage'>) => this.call('updateMessage', r);
  fork = (r: StoreRequest<'fork'>) => this.call('fork', r);
  setActiveLeaf = (r: StoreRequest<'setActiveLeaf'>) => this.call('setActiveLeaf', r);
  getMessage = (r: StoreRequest<'getMessage'>) => this.call('getMessage', r);
  messages = (r: StoreRequest<'messages'>) => this.call('messages', r);
  configStatus = (r: StoreRequest<'configStatus'> = {}) => this.call('configStatus', r);
}
