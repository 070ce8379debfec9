import { ALL_SCENARIOS, pickScenarios } from './scenarios';

test('every process is killed mid-stream and mid-tool, Temporal and NATS go down, with a control', () => {
  expect(ALL_SCENARIOS.map((s) => s.id)).toEqual([
    'none-stream', 'none-tool',
    'gateway-stream', 'gateway-tool', 'worker-stream', 'worker-tool', 'store-stream', 'store-tool',
    'nats-stream', 'nats-tool', 'temporal-stream', 'temporal-tool',
    'worker-failover-stream', 'worker-failover-tool', 'temporal-outage', 'nats-outage',
  ]);
});

test('CHAOS_SCENARIOS picks by id or by component, and names what it does not know', () => {
  expect(pickScenarios('worker,nats-outage').map((s) => s.id)).toEqual(['worker-stream', 'worker-tool', 'worker-failover-stream', 'worker-failover-tool', 'nats-outage']);
  expect(pickScenarios('nats').map((s) => s.id)).toEqual(['nats-stream', 'nats-tool', 'nats-outage']);
  expect(pickScenarios(undefined)).toBe(ALL_SCENARIOS);
  expect(() => pickScenarios('workers')).toThrow(/unknown workers/);
});
