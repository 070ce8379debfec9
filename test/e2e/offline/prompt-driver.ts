import net from 'node:net';
import { openSse, readUntil } from '../../harness/sse-client';

/**
 * Run inside the offline stack's network namespace (nsenter) by test/e2e/offline-start.test.ts: first
 * shows that nothing outside loopback is reachable from there, then drives one turn over HTTP+SSE and
 * prints what it saw as one JSON line.
 *   node --import tsx test/e2e/offline/prompt-driver.ts <gateway url> <project path>
 */
async function reachable(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

async function main(): Promise<void> {
  const [gateway, project] = process.argv.slice(2);
  if (!gateway || !project) throw new Error('usage: prompt-driver.ts <gateway url> <project path>');
  // A documentation address (TEST-NET-1): outside loopback, so in a namespace with only `lo` no route.
  const outside = await reachable('192.0.2.1', 443);
  const post = async (route: string, body: unknown) => {
    const res = await fetch(`${gateway}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const created = await post('/api/sessions', { project_path: project });
  const sid = String(created.body.session_id);
  const events = await openSse(`${gateway}/api/sessions/${sid}/events`);
  const prompted = await post(`/api/sessions/${sid}/prompt`, { text: 'offline hello' });
  const seen = await readUntil(events, (e) => e.event === 'turn.finished');
  events.close();
  const text = seen.filter((e) => e.event === 'message.delta').map((e) => (JSON.parse(e.data) as { content: string }).content).join('');
  const finished = JSON.parse(seen[seen.length - 1]!.data) as { outcome?: string };
  console.log(JSON.stringify({ outside, created: created.status, prompted: prompted.status, text, outcome: finished.outcome }));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
