import { instanceFlags, parseInstanceFlags, upInstanceCounts } from './instance-flags';

describe('up --gateways/--workers/--stores', () => {
  test('counts come from `--flag N` or `--flag=N`; other arguments are left alone', () => {
    const counts = parseInstanceFlags(['-d', '--gateways', '2', '--workers=3', '--stores', '2']);
    expect(counts).toEqual({ gateway: 2, worker: 3, store: 2 });
    expect(parseInstanceFlags(['-d'])).toEqual({});
  });

  test('the runner gets the same counts back as flags', () => {
    const counts = { gateway: 2, store: 2 };
    expect(instanceFlags(counts)).toEqual(['--gateways', '2', '--stores', '2']);
    expect(parseInstanceFlags(instanceFlags(counts))).toEqual(counts);
  });

  test('a missing or bad count names the flag', () => {
    expect(() => parseInstanceFlags(['--workers'])).toThrow('--workers needs a number of instances, got nothing');
    expect(() => parseInstanceFlags(['--gateways', 'two'])).toThrow('--gateways needs a number of instances, got "two"');
    expect(() => parseInstanceFlags(['--stores=0'])).toThrow(/store instances: 0 is not a whole number from 1 to 8/);
  });

  test('up runs two workers unless told otherwise', () => {
    expect(upInstanceCounts(['-d'])).toEqual({ worker: 2 });
    expect(upInstanceCounts(['--workers', '1', '--gateways', '2'])).toEqual({ worker: 1, gateway: 2 });
  });
});
