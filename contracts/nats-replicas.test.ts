import { natsReplicas } from './nats-replicas';

describe('natsReplicas', () => {
  it('is 1 when unset or blank', () => {
    expect(natsReplicas({})).toBe(1);
    expect(natsReplicas({ STRAND_NATS_REPLICAS: ' ' })).toBe(1);
  });
  it('reads 1 to 5', () => {
    expect(natsReplicas({ STRAND_NATS_REPLICAS: '3' })).toBe(3);
    expect(natsReplicas({ STRAND_NATS_REPLICAS: '5' })).toBe(5);
  });
  it('refuses anything else, naming the variable', () => {
    for (const bad of ['0', '6', '2.5', 'three']) expect(() => natsReplicas({ STRAND_NATS_REPLICAS: bad })).toThrow(/STRAND_NATS_REPLICAS/);
  });
});
