import type { Logger } from '../../../common/logger';
import type { SessionService } from '../../sessions/session-service';
import { EdnErrorCode, EdnOpError, type EdnOutbound, type EdnPeer, type EdnRequest, type EdnSessionHandler, type EdnSessionHandlerFactory } from '../protocol';
import type { EdnMap } from '../edn-value';

/** What the EDN session layer needs from the gateway: the protocol-neutral session face and a logger. */
export interface EdnSessionDeps {
  sessions: SessionService;
  log: Logger;
}

/** One handler per connection: its focus session, subscriptions and event feed live here. */
export function ednSessionHandlerFactory(deps: EdnSessionDeps): EdnSessionHandlerFactory {
  return (out: EdnOutbound, peer: EdnPeer): EdnSessionHandler => {
    void out;
    void peer;
    void deps;
    return {
      handshake: async (): Promise<{ serverInfo: EdnMap }> => ({ serverInfo: {} }),
      request: async (req: EdnRequest): Promise<EdnMap> => {
        throw new EdnOpError(EdnErrorCode.opNotSupported, `op ${req.op} is not supported yet`, { 'supported-ops': [] });
      },
      close: () => undefined,
    };
  };
}
