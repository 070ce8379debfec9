import { checkInstanceCounts, gatewayPortPlan, instanceNames, ordinalOf, serviceOf, sharedStoreEnv } from './instances';

describe('instances', () => {
  test('the first instance keeps the service\'s name; the others are numbered from 2', () => {
    expect(instanceNames({ gateway: 3 }, 'gateway')).toEqual(['gateway', 'gateway#2', 'gateway#3']);
    expect(instanceNames({ gateway: 3 }, 'worker')).toEqual(['worker']);
    expect(instanceNames(undefined, 'store')).toEqual(['store']);
    // Servers never run twice, whatever is asked.
    expect(instanceNames({ gateway: 2 }, 'nats')).toEqual(['nats']);
    expect(['gateway', 'gateway#3'].map((n) => [serviceOf(n as 'gateway'), ordinalOf(n as 'gateway')])).toEqual([['gateway', 1], ['gateway', 3]]);
  });

  test('extra gateways take the two ports above the gateway before them, HTTP then EDN', () => {
    expect(gatewayPortPlan({ gateway: 9420, edn: 9421 }, 3)).toEqual([
      { http: 9420, edn: 9421 },
      { http: 9422, edn: 9423 },
      { http: 9424, edn: 9425 },
    ]);
    expect(gatewayPortPlan({ gateway: 8000, edn: 9000 }, 2)[1]).toEqual({ http: 9001, edn: 9002 });
    // Picked at start: every gateway's ports are picked free, and so is an EDN port left out.
    expect(gatewayPortPlan({ gateway: 0, edn: 0 }, 2)).toEqual([{ http: 0, edn: 0 }, { http: 0, edn: 0 }]);
    expect(gatewayPortPlan({ gateway: 9420 }, 2)).toEqual([{ http: 9420, edn: 0 }, { http: 9421, edn: 0 }]);
    expect(() => gatewayPortPlan({ gateway: 65534, edn: 65535 }, 2)).toThrow(/above 65535/);
  });

  test('counts are whole numbers from 1 to 8, for stores, workers and gateways only', () => {
    expect(() => checkInstanceCounts({ gateway: 2, worker: 8, store: 1 })).not.toThrow();
    expect(() => checkInstanceCounts({ worker: 0 })).toThrow(/worker instances: 0 is not a whole number from 1 to 8/);
    expect(() => checkInstanceCounts({ store: 9 })).toThrow(/store instances: 9/);
    expect(() => checkInstanceCounts({ nats: 2 } as never)).toThrow(/nats cannot run as several instances/);
  });

  test('several stores run the jetstream adapter, and refuse another one named explicitly', () => {
    expect(sharedStoreEnv({ store: 1 }, undefined)).toEqual({});
    expect(sharedStoreEnv({ store: 1 }, 'fs')).toEqual({});
    expect(sharedStoreEnv({ store: 2 }, undefined)).toEqual({ STRAND_STORE_ADAPTER: 'jetstream' });
    expect(sharedStoreEnv({ store: 2 }, 'jetstream')).toEqual({ STRAND_STORE_ADAPTER: 'jetstream' });
    expect(() => sharedStoreEnv({ store: 2 }, 'fs')).toThrow(/STRAND_STORE_ADAPTER=fs: 2 store instances need the jetstream adapter/);
  });
});
