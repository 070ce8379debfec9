/**
 * The EDN codec of the wire layer: a strict reader for inbound frames and a writer of the safe
 * subset for outbound ones (docs/edn.md "Transport"). `edn-data` is not used: it reads tagged
 * literals, comments and discard forms, which this protocol must refuse.
 */
export { EdnSyntaxError, parseEdn } from './edn-parse';
export { EdnEncodeError, encodeEdn } from './edn-encode';
