import { WebSocket } from 'ws';

/**
 * The benchmarks' one way to open the gateway's WebSocket JSON RPC endpoint (docs/websocket.md):
 * resolves once the socket is open; an upgrade the gateway refuses rejects with its status.
 */
export function openWsRpc(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`${url} answered ${res.statusCode}`)));
  });
}

/** A `chat.start` frame: one turn of `request` (message, history, model, sessionId, workspace) under `id` (`rpc_[a-z0-9]+`). */
export const chatStartFrame = (id: string, request: Record<string, unknown>) => JSON.stringify({ id, type: 'chat.start', payload: { request } });
