import net from 'node:net';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { TemporalLink } from './temporal-link';

/** A loopback port nothing listens on (taken, then released). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('TemporalLink before it has connected', () => {
  it('fails calls as UNAVAILABLE (a 503 saying why), not as a plain error a route answers 500 with', async () => {
    const link = new TemporalLink(`127.0.0.1:${await deadPort()}`, 'default');
    try {
      for (const call of [() => link.ping(100), () => link.withDeadline(100, async () => 'never')]) {
        const err = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(StrandError);
        expect((err as StrandError).code).toBe(ErrorCode.UNAVAILABLE);
        expect((err as StrandError).message).toMatch(/^Temporal at 127\.0\.0\.1:\d+ is not reachable/);
      }
    } finally {
      await link.close();
    }
  });
});
