import type { EdnSessionHandler, EdnSessionHandlerFactory } from '../gateway/edn/protocol';

/**
 * A handler factory for a process that starts before its stack is reachable (`strand rpc-edn`): the
 * wire layer gets a handler at once, and every handshake or request first asks `ready` for the
 * session layer's factory. While the stack is down `ready` rejects (an EdnOpError naming what is
 * down), which becomes that request's `:error`; once it resolves, the real handler is made once for
 * the connection and everything goes to it.
 */
export function deferredHandlerFactory(ready: () => Promise<EdnSessionHandlerFactory>): EdnSessionHandlerFactory {
  return (out, peer) => {
    let inner: EdnSessionHandler | undefined;
    let closed = false;
    const handler = async (): Promise<EdnSessionHandler> => {
      const factory = await ready();
      if (closed) throw new Error('the connection is closed');
      return (inner ??= factory(out, peer));
    };
    return {
      handshake: async (clientInfo) => (await handler()).handshake(clientInfo),
      request: async (req) => (await handler()).request(req),
      close: () => {
        closed = true;
        inner?.close();
      },
    };
  };
}
