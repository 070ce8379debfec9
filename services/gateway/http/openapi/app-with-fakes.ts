import { createGatewayAuth } from '../../auth/tokens';
import { createHttpApp, type HttpDeps } from '../app';

/**
 * The HTTP app with fakes, for tests of the OpenAPI document: nothing is called while routes are
 * registered or the document is served, only when requests arrive.
 */
export function appWithFakes() {
  const deps = {
    sessions: {},
    transcripts: {},
    store: {},
    nc: {},
    temporal: {},
    keepaliveMs: 15_000,
    maxBodyBytes: 1024,
    log: { error: () => undefined, warn: () => undefined, debug: () => undefined },
    auth: createGatewayAuth(new Map([['tok', 'alice']])),
    rateLimit: { perSecond: 1000, burst: 1000 },
  } as unknown as HttpDeps;
  return createHttpApp(deps);
}
