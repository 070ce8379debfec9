import type { EdnMap } from './edn-value';

/**
 * The seam between the EDN wire layer (codec, framing, envelopes, handshake gate, pending requests,
 * `:seq`/`:ts`, stdio and TCP transports) and the session layer (ops, focus, subscriptions, event
 * mapping). The wire layer validates every inbound frame and hands only well-formed requests on;
 * the session layer never sees a malformed frame and never writes a byte itself.
 */

/** Error codes of docs/edn.md, spelled as they go on the wire. */
export const EdnErrorCode = {
  notReady: 'transport/not-ready',
  invalidFrame: 'transport/invalid-frame',
  maxPending: 'transport/max-pending-exceeded',
  unsupportedVersion: 'protocol/unsupported-version',
  invalidEnvelope: 'protocol/invalid-envelope',
  invalidId: 'request/invalid-id',
  invalidOp: 'request/invalid-op',
  invalidParams: 'request/invalid-params',
  invalidQuery: 'request/invalid-query',
  opNotSupported: 'request/op-not-supported',
  sessionNotIdle: 'request/session-not-idle',
  notFound: 'request/not-found',
  unknownModel: 'request/unknown-model',
  noPendingLogin: 'request/no-pending-login',
  noActiveDialog: 'request/no-active-dialog',
  queryFailed: 'runtime/query-failed',
  failed: 'runtime/failed',
  unauthorized: 'transport/unauthorized',
} as const;
export type EdnErrorCode = (typeof EdnErrorCode)[keyof typeof EdnErrorCode];

/** A failure the session layer reports for a request: becomes an `:error` frame echoing `:id`/`:op`. */
export class EdnOpError extends Error {
  constructor(
    readonly code: EdnErrorCode,
    message: string,
    readonly data?: EdnMap,
    readonly retryable?: boolean,
  ) {
    super(message);
  }
}

/** A request that passed envelope validation (and, for every op but `handshake`, the handshake gate). */
export interface EdnRequest {
  id: string;
  op: string;
  params: EdnMap;
}

/** What the session layer may send; the wire layer adds `:kind`, `:seq`, `:ts` and writes one line. */
export interface EdnOutbound {
  /** Events: `:seq` and `:ts` are stamped by the wire layer; `id` is the request that caused it. */
  event(topic: string, data: EdnMap, id?: string): void;
}

/** Who is on the other end, as the wire layer established it. */
export interface EdnPeer {
  transport: 'stdio' | 'tcp';
  /** The authenticated principal when tokens are configured (TCP); undefined means auth is off / stdio. */
  principal?: string;
  /** Working directory new sessions use as their project path (`--cwd`, else the process cwd). */
  cwd: string;
  /** `--session-id`: the session to focus first, if given. */
  sessionId?: string;
}

/**
 * One protocol session's semantics. The wire layer calls `handshake` once the version check passed
 * and `request` for every other op; each returned promise resolves to the response's `:data` or
 * rejects with an `EdnOpError` (anything else becomes `runtime/failed` without its stack).
 * Responses are written before any event the session layer emits after the promise settles.
 */
export interface EdnSessionHandler {
  handshake(clientInfo: EdnMap): Promise<{ serverInfo: EdnMap }>;
  request(req: EdnRequest): Promise<EdnMap>;
  /** The connection ended (EOF, socket closed, SIGTERM): stop every feed, leave turns running. */
  close(): void;
}

export type EdnSessionHandlerFactory = (out: EdnOutbound, peer: EdnPeer) => EdnSessionHandler;
