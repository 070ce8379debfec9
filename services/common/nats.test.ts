import { natsServers } from './nats';

describe('natsServers', () => {
  it('reads one URL or a comma-separated list of a cluster’s nodes', () => {
    expect(natsServers('nats://127.0.0.1:4222')).toEqual(['nats://127.0.0.1:4222']);
    expect(natsServers('nats://nats-1:4222, nats://nats-2:4222,,nats://nats-3:4222 ')).toEqual(['nats://nats-1:4222', 'nats://nats-2:4222', 'nats://nats-3:4222']);
  });
});
