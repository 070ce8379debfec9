import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EdnErrorCode, EdnOpError, type EdnSessionHandlerFactory } from '../gateway/edn/protocol';
import { parseRpcEdnArgs, RPC_EDN_USAGE } from './rpc-edn';
import { deferredHandlerFactory } from './rpc-edn-deferred';

describe('parseRpcEdnArgs', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-rpc-edn-args-'));
  fs.mkdirSync(path.join(base, 'proj'));
  afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

  it('defaults to the directory it runs in', () => {
    expect(parseRpcEdnArgs([], base)).toEqual({ cwd: base });
  });

  it('reads --cwd (relative to where it runs) and --session-id, with or without =', () => {
    expect(parseRpcEdnArgs(['--cwd', 'proj', '--session-id', 's1'], base)).toEqual({ cwd: path.join(base, 'proj'), sessionId: 's1' });
    expect(parseRpcEdnArgs([`--cwd=${base}/proj`, '--session-id=a=b'], base)).toEqual({ cwd: path.join(base, 'proj'), sessionId: 'a=b' });
  });

  it.each([[['--verbose']], [['--cwd']], [['--session-id', '']], [['proj']]])('refuses %j with the usage', (args) => {
    expect(() => parseRpcEdnArgs(args, base)).toThrow(RPC_EDN_USAGE);
  });

  it('refuses a --cwd that is not a directory', () => {
    expect(() => parseRpcEdnArgs(['--cwd', 'missing'], base)).toThrow(/is not a directory/);
  });
});

describe('deferredHandlerFactory', () => {
  const out = { event: () => undefined };
  const peer = { transport: 'stdio' as const, cwd: '/p' };

  it('answers with the stack error while it is down, then makes the real handler once', async () => {
    let up = false;
    let made = 0;
    let closed = 0;
    const real: EdnSessionHandlerFactory = () => {
      made += 1;
      return { handshake: async () => ({ serverInfo: { 'session-id': 's' } }), request: async (req) => ({ op: req.op }), close: () => (closed += 1) };
    };
    const down = new EdnOpError(EdnErrorCode.failed, 'NATS at x is not reachable', undefined, true);
    const handler = deferredHandlerFactory(async () => {
      if (!up) throw down;
      return real;
    })(out, peer);
    await expect(handler.handshake({})).rejects.toBe(down);
    expect(made).toBe(0);
    up = true;
    await expect(handler.handshake({})).resolves.toEqual({ serverInfo: { 'session-id': 's' } });
    await expect(handler.request({ id: '1', op: 'ping', params: {} })).resolves.toEqual({ op: 'ping' });
    expect(made).toBe(1);
    handler.close();
    expect(closed).toBe(1);
    await expect(handler.request({ id: '2', op: 'ping', params: {} })).rejects.toThrow(/closed/);
  });
});
