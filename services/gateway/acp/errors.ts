import { RequestError } from '@agentclientprotocol/sdk';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { Logger } from '../../common/logger';
import { UnsupportedPrompt } from './prompt-text';

/**
 * How a failure answers an ACP request: the JSON-RPC code the protocol has for it, strand's own
 * code in `data.code`. A session that is unknown (or another principal's) is -32002, what the
 * client sent wrong is -32602, a stack part that does not answer is -32603 naming it; anything
 * else is -32603 with its details left in the log.
 */
export function toRequestError(err: unknown, log: Logger, about: Record<string, unknown>): RequestError {
  if (err instanceof RequestError) return err;
  if (err instanceof UnsupportedPrompt) return RequestError.invalidParams({ code: ErrorCode.INVALID_REQUEST }, err.message);
  if (err instanceof StrandError) {
    const data = { code: err.code, ...(err.details ? { details: err.details } : {}) };
    switch (err.code) {
      case ErrorCode.SESSION_NOT_FOUND:
        return new RequestError(-32002, `Resource not found: ${err.message}`, data);
      case ErrorCode.INVALID_REQUEST:
      case ErrorCode.UNKNOWN_MODEL:
      case ErrorCode.IMAGES_NOT_SUPPORTED:
      case ErrorCode.INVALID_TOOL_CALL:
      case ErrorCode.PERMISSION_DENIED:
      case ErrorCode.PAYLOAD_TOO_LARGE:
        return RequestError.invalidParams(data, err.message);
      default:
        return new RequestError(-32603, err.message, data);
    }
  }
  log.error({ err, ...about }, 'an ACP request failed');
  return RequestError.internalError({ code: ErrorCode.INTERNAL }, 'see the strand acp log');
}
