import fs from 'node:fs';
import net from 'node:net';
import { freePort } from './free-port';

/** The start of the kernel's own port range, as free-port.ts reads it. */
const rangeStart = () => Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

test('free ports come from below the kernel\'s own range, are bindable and never handed out twice', async () => {
  const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
  expect(new Set(ports).size).toBe(50);
  for (const port of ports) expect(port).toBeLessThan(rangeStart());
  // Each can be listened on (what its caller does next).
  for (const port of ports.slice(0, 5)) {
    await new Promise<void>((resolve, reject) => {
      const server = net.createServer().once('error', reject);
      server.listen({ host: '127.0.0.1', port }, () => server.close(() => resolve()));
    });
  }
});
