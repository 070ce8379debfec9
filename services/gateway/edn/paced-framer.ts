import { MessagePacer } from '../limits/message-pacer';
import { framerFor, type EdnConnection } from './edn-connection';
import type { LineFramer } from './line-framer';

/**
 * The framer of one TCP connection: its frames are handled at most 64 per turn of the event loop, and
 * the socket is not read while the rest wait (limits/message-pacer.ts says why; one 64 KiB read holds
 * thousands of short lines). Lines and the reports of lines that could not be read (too long, not
 * UTF-8) wait in the one queue, so the client's answers come in the order of what it sent.
 */
export class PacedFramer {
  private readonly pacer: MessagePacer<() => void>;
  private readonly framer: LineFramer;

  constructor(conn: EdnConnection, maxFrameBytes: number, socket: { pause(): void; resume(): void }) {
    this.pacer = new MessagePacer((handle) => handle(), socket);
    this.framer = framerFor(conn, maxFrameBytes, (handle) => this.pacer.push(handle));
  }

  /** Bytes as they were read from the socket. */
  push(chunk: Buffer): void {
    this.framer.push(chunk);
  }

  /**
   * The client ended its side: a last line without its `\n` joins the queue, and everything in it is
   * handled now, so that the wait for answers which follows sees its requests pending.
   */
  end(): void {
    this.framer.end();
    this.pacer.flush();
  }

  /** The socket closed: what still waits is handled now, in order (what the client sent still counts). */
  close(): void {
    this.pacer.flush();
  }
}
