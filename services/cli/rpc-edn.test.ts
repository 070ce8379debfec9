import { EdnErrorCode, EdnOpError, type EdnSessionHandlerFactory } from '../gateway/edn/protocol';
import { deferredHandlerFactory } from './rpc-edn-deferred';

describe('deferredHandlerFactory', () => {
  const out = { event: () => undefined };
  const peer = { transport: 'stdio' as const, cwd: '/p' };

  it('answers with the stack error while it is down, then makes the real handler once', async () => {
    let up = false;
    let made = 0;
    let closed = 0;
    const real: EdnSessionHandlerFactory = () => {
      made += 1;
      return { handshake: async () => ({ serverInfo: { 'session-id': 's' } }), request: async (req) => ({ op: req.op }), close: () => (closed += 1) };
    };
    const down = new EdnOpError(EdnErrorCode.failed, 'NATS at x is not reachable', undefined, true);
    const handler = deferredHandlerFactory(async () => {
      if (!up) throw down;
      return real;
    })(out, peer);
    await expect(handler.handshake({})).rejects.toBe(down);
    expect(made).toBe(0);
    up = true;
    await expect(handler.handshake({})).resolves.toEqual({ serverInfo: { 'session-id': 's' } });
    await expect(handler.request({ id: '1', op: 'ping', params: {} })).resolves.toEqual({ op: 'ping' });
    expect(made).toBe(1);
    handler.close();
    expect(closed).toBe(1);
    await expect(handler.request({ id: '2', op: 'ping', params: {} })).rejects.toThrow(/closed/);
  });
});
