import { ALL_SCENARIOS, pickScenarios } from './scenarios';

test('every process is killed mid-stream and mid-tool, Temporal and NATS go down, with a control', () => {
  expect(ALL_SCENARIOS.map((s) => s.id)).toEqual([
    'none-stream', 'none-tool',
    'gateway-stream', 'gateway-tool', 'worker-stream', 'worker-tool', 'store-stream', 'store-tool',
    'nats-stream', 'nats-tool', 'temporal-stream', 'temporal-tool',
    'gateway-failover-stream', 'gateway-failover-tool', 'worker-failover-stream', 'worker-failover-tool', 'temporal-outage', 'nats-outage',
    'gateway-sigterm-stream', 'worker-sigterm-stream', 'store-sigterm-stream', 'nats-sigterm-stream', 'temporal-sigterm-stream',
    'worker-failover-sigterm-stream', 'worker-failover-sigterm-tool', 'worker-rolling-stream', 'stack-stop-stream',
  ]);
});

test('CHAOS_SCENARIOS picks by id or by component, and names what it does not know', () => {
  expect(pickScenarios('worker,nats-outage').map((s) => s.id)).toEqual([
    'worker-stream', 'worker-tool', 'worker-failover-stream', 'worker-failover-tool', 'nats-outage',
    'worker-sigterm-stream', 'worker-failover-sigterm-stream', 'worker-failover-sigterm-tool', 'worker-rolling-stream',
  ]);
  expect(pickScenarios('nats').map((s) => s.id)).toEqual(['nats-stream', 'nats-tool', 'nats-outage', 'nats-sigterm-stream']);
  expect(pickScenarios('stack').map((s) => s.id)).toEqual(['stack-stop-stream']);
  expect(pickScenarios(undefined)).toBe(ALL_SCENARIOS);
  expect(() => pickScenarios('workers')).toThrow(/unknown workers/);
});
