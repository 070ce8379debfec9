import type { ServerResponse } from 'node:http';
import type { SSEStreamingApi } from 'hono/streaming';
import type { OutboxSink } from '../events/client-outbox';

/**
 * Hono's SSE stream as a client outbox's sink. Hono hands a write on only when the response has
 * taken the one before (its stream is pulled as the Node response drains), so the bytes whose write
 * has not settled are what the client has not taken, plus what the Node response itself still holds
 * (`res`, when the app runs on the Node server; without it the stream alone is measured and a
 * dropped client is aborted through Hono).
 */
export function sseStreamSink(stream: SSEStreamingApi, res: ServerResponse | undefined): OutboxSink {
  let pending = 0;
  const socket = res?.socket ?? undefined;
  const write = (data: string | Buffer) => {
    const bytes = Buffer.byteLength(data);
    pending += bytes;
    // Hono's write never rejects (a write to a client that left settles quietly).
    void stream.write(data).finally(() => (pending -= bytes));
  };
  return {
    write,
    unsent: () => pending + (res?.writableLength ?? 0),
    open: () => !stream.aborted && !stream.closed,
    end: (last) => {
      // Cut, not finished: once the response is out its connection is closed too, not kept alive for reuse.
      res?.once('finish', () => socket?.destroySoon());
      if (last !== undefined) write(last);
      void stream.close();
    },
    destroy: () => (socket ? socket.destroy() : void stream.abort()),
  };
}
