import { isEdnMap, type EdnMap } from './edn-value';
import { EdnErrorCode, EdnOpError } from './protocol';

/** The protocol version this server speaks; changes inside major version 1 are additive. */
const PROTOCOL_VERSION = '1.0';
const MAJOR = 1;

export interface HandshakeRequest {
  /** What the client said about itself, without its token (the session layer never sees one). */
  clientInfo: EdnMap;
  /** `:client-info :auth-token`, when the client sent a string. */
  token?: string;
}

/**
 * Reads a handshake's params: `{:client-info {... :protocol-version "1.0"}}`, or the bare
 * `{:protocol-version "1.0"}` older clients send. A missing version is request/invalid-params; a
 * major version other than 1 is protocol/unsupported-version (the connection stays not ready).
 */
export function readHandshake(params: EdnMap): HandshakeRequest {
  const nested = params['client-info'];
  if (nested !== undefined && !isEdnMap(nested)) throw new EdnOpError(EdnErrorCode.invalidParams, ':client-info must be a map');
  const info = nested ?? params;
  const version = info['protocol-version'];
  if (typeof version !== 'string' || version.trim() === '') {
    throw new EdnOpError(EdnErrorCode.invalidParams, 'handshake needs :params {:client-info {:protocol-version "1.0"}}');
  }
  const major = /^(\d+)(?:\.|$)/.exec(version.trim())?.[1];
  if (major === undefined || Number(major) !== MAJOR) {
    throw new EdnOpError(EdnErrorCode.unsupportedVersion, `protocol version ${JSON.stringify(version)} is not supported: this server speaks ${PROTOCOL_VERSION}`, {
      'supported-versions': [PROTOCOL_VERSION],
    });
  }
  const { 'auth-token': token, ...clientInfo } = info;
  return { clientInfo, ...(typeof token === 'string' ? { token } : {}) };
}

/** The handshake's answer: the session layer's server info, with the version and features it may leave out. */
export function serverInfoWithDefaults(serverInfo: EdnMap): EdnMap {
  return { 'protocol-version': PROTOCOL_VERSION, features: [], ...serverInfo };
}
