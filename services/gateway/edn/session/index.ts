import type { Logger } from '../../../common/logger';
import type { JobService } from '../../jobs/job-service';
import type { SessionService } from '../../sessions/session-service';
import type { EdnOutbound, EdnPeer, EdnSessionHandler, EdnSessionHandlerFactory } from '../protocol';
import { EdnSessionConnection } from './connection';
import type { OpHandler } from './op-context';
import { commandOps } from './ops/commands';
import { dialogOps } from './ops/dialogs';
import { jobOps } from './ops/jobs';
import { navigationOps } from './ops/navigation';
import { readOps } from './ops/reads';
import { settingsOps } from './ops/settings';
import { shellOps } from './ops/shell';
import { turnOps } from './ops/turns';
import { unavailableOps } from './ops/unavailable';

/** What the EDN session layer needs from the gateway: the protocol-neutral session face, the jobs and a logger. */
export interface EdnSessionDeps {
  sessions: SessionService;
  jobs: JobService;
  log: Logger;
}

/** Every op of docs/edn.md but `handshake` (the wire layer routes that to `handshake()`). */
export const EDN_OPS: Readonly<Record<string, OpHandler>> = {
  ...readOps,
  ...turnOps,
  ...settingsOps,
  ...navigationOps,
  ...commandOps,
  ...dialogOps,
  ...shellOps,
  ...jobOps,
  ...unavailableOps,
};

/** One handler per connection: its focus session, subscriptions and event feed live in it. */
export function ednSessionHandlerFactory(deps: EdnSessionDeps): EdnSessionHandlerFactory {
  return (out: EdnOutbound, peer: EdnPeer): EdnSessionHandler => new EdnSessionConnection(deps, out, peer, EDN_OPS);
}
