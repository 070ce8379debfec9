import { readyLine } from './ready-line';

describe('the ready line of strand up', () => {
  test('names the gateway, its API docs, EDN, the workers and the Temporal UI', () => {
    const line = readyLine({ gateways: ['http://127.0.0.1:9420'], edns: ['127.0.0.1:9421'], temporalUi: 'http://127.0.0.1:8233', workers: 2, stores: 1 }, 'Ctrl-C stops');
    expect(line).toBe(
      '[strand] ready — gateway http://127.0.0.1:9420  ·  API docs http://127.0.0.1:9420/api/docs  ·  EDN 127.0.0.1:9421  ·  2 workers, 1 store  ·  Temporal UI http://127.0.0.1:8233  ·  Ctrl-C stops',
    );
  });

  test('with several gateways: all of them, the docs of the first; one of everything needs no counts', () => {
    expect(readyLine({ gateways: ['http://h:1', 'http://h:3'], edns: ['h:2', 'h:4'], workers: 1, stores: 2 }, 'stop it with `npm stop`')).toBe(
      '[strand] ready — gateways http://h:1 http://h:3  ·  API docs http://h:1/api/docs  ·  EDN h:2 h:4  ·  1 worker, 2 stores  ·  Temporal UI (off)  ·  stop it with `npm stop`',
    );
    expect(readyLine({ gateways: ['http://h:1'], edns: ['h:2'], workers: 1, stores: 1 }, 'x')).toBe('[strand] ready — gateway http://h:1  ·  API docs http://h:1/api/docs  ·  EDN h:2  ·  Temporal UI (off)  ·  x');
  });
});
