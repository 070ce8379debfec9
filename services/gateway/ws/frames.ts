import { ErrorCode } from '../../../contracts/errors';
import { rpcServerFrameSchema, type ChatStreamTerminal, type RpcServerFrame } from '../../../contracts/ws-rpc';
import type { Logger } from '../../common/logger';

/** The frame that ends a request on a WebSocket, from a chat's terminal. */
export function terminalFrame(id: string, terminal: ChatStreamTerminal): RpcServerFrame {
  if (terminal.type === 'done') return { id, type: 'chat.done', reply: terminal.reply };
  const { type: _type, ...fields } = terminal;
  return { id, type: 'chat.error', ...fields };
}

/**
 * Serializes a server frame after checking it against the protocol's schema. Clients drop a frame
 * that fails their schema without a word, and a dropped `chat.done` leaves them waiting forever: an
 * invalid terminal frame is replaced by a valid `chat.error`, any other invalid frame is not sent.
 * Both are logged, since either is a gateway bug.
 */
export function encodeFrame(frame: RpcServerFrame, log: Logger): string | undefined {
  const parsed = rpcServerFrameSchema.safeParse(frame);
  if (parsed.success) return JSON.stringify(parsed.data);
  log.error({ type: frame.type, id: frame.id, issues: parsed.error.issues.slice(0, 5) }, 'an RPC frame did not match the protocol');
  if (frame.type !== 'chat.done' && frame.type !== 'chat.error') return undefined;
  const fallback: RpcServerFrame = {
    id: frame.id,
    type: 'chat.error',
    errorMessage: 'internal error: the reply did not match the protocol (see the gateway log)',
    errorCode: ErrorCode.INTERNAL,
  };
  return JSON.stringify(rpcServerFrameSchema.parse(fallback));
}
