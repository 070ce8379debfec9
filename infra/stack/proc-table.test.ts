import { spawn } from 'node:child_process';
import net from 'node:net';
import { environHas, isRunning, lineage, portHolders, readProc } from './proc-table';

const linux = process.platform === 'linux';

(linux ? describe : describe.skip)('process table (/proc)', () => {
  test('reads this process: parent, group, command, start time', () => {
    const me = readProc(process.pid);
    expect(me?.ppid).toBe(process.ppid);
    expect(me?.command).toContain('node');
    expect(me?.startTime).toBeGreaterThan(0);
    expect(isRunning(process.pid, me?.startTime)).toBe(true);
    expect(isRunning(process.pid, (me?.startTime ?? 0) + 1)).toBe(false);
    expect([...lineage()].slice(0, 2)).toEqual([process.pid, process.ppid]);
  });

  test('sees the environment a child was started with', async () => {
    const child = spawn('sleep', ['30'], { env: { ...process.env, STRAND_PROC_TABLE_TEST: 'yes' }, stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      expect(environHas(child.pid ?? -1, 'STRAND_PROC_TABLE_TEST=yes')).toBe(true);
      expect(environHas(child.pid ?? -1, 'STRAND_PROC_TABLE_TEST=no')).toBe(false);
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('names the process listening on a port', async () => {
    const server = net.createServer();
    await new Promise<void>((r) => server.listen({ host: '127.0.0.1', port: 0 }, r));
    try {
      const port = (server.address() as net.AddressInfo).port;
      expect(portHolders(port).map((p) => p.pid)).toEqual([process.pid]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
