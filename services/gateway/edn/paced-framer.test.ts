import pino from 'pino';
import { parseEdn } from './codec';
import { EdnConnection } from './edn-connection';
import type { EdnMap } from './edn-value';
import { PacedFramer } from './paced-framer';
import { EdnErrorCode } from './protocol';

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A real connection behind the framer, fed lines that are EDN but not requests (`:kind :nope`): each is
 * answered at once with an :error echoing its :id, so the frames written show what was handled, and in
 * which order, without a session.
 */
function setup() {
  const written: EdnMap[] = [];
  const conn = new EdnConnection({
    transport: { write: (line) => written.push(parseEdn(line) as EdnMap), end: () => undefined },
    factory: () => {
      throw new Error('these tests never complete a handshake');
    },
    peer: { transport: 'tcp', cwd: '/tmp' },
    maxPending: 64,
    log: pino({ level: 'silent' }),
  });
  const socket = { pauses: 0, resumes: 0, pause: () => socket.pauses++, resume: () => socket.resumes++ };
  // An error frame shows its :id, or for a line that could not be read, why.
  const seen = () => written.map((f) => (f.id as string | undefined) ?? (f['error-message'] as string).replace(/:.*/, ''));
  return { written, seen, socket, framer: new PacedFramer(conn, 200, socket) };
}

const lines = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `{:id "m${from + i}" :kind :nope}\n`).join('');
const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `m${from + i}`);

test('a chunk of 150 lines is handled 64 per turn of the event loop, every line once and in order; the socket is paused meanwhile and resumed after', async () => {
  const { written, seen, socket, framer } = setup();
  framer.push(Buffer.from(lines(0, 150)));
  expect(seen()).toEqual(ids(0, 64));
  expect([socket.pauses, socket.resumes]).toEqual([1, 0]);
  const perTurn: number[] = [];
  while (written.length < 150) {
    const before = written.length;
    await nextTurn();
    perTurn.push(written.length - before);
  }
  expect(perTurn).toEqual([64, 22]);
  expect(seen()).toEqual(ids(0, 150));
  expect(written.every((f) => f['error-code'] === EdnErrorCode.invalidEnvelope)).toBe(true);
  expect([socket.pauses, socket.resumes]).toEqual([1, 1]);
});

test('a line too long or not UTF-8 is reported in its place among the lines, not ahead of those waiting', async () => {
  const { written, seen, framer } = setup();
  framer.push(Buffer.from(lines(0, 70)));
  framer.push(Buffer.from(`{:id "long" :kind :nope :s "${'x'.repeat(300)}"}\n`));
  framer.push(Buffer.from([0xff, 0xfe, 0x0a]));
  framer.push(Buffer.from(lines(70, 71)));
  expect(seen()).toEqual(ids(0, 64));
  while (written.length < 73) await nextTurn();
  expect(seen()).toEqual([...ids(0, 70), 'the frame is longer than 200 bytes', 'the frame is not valid UTF-8', 'm70']);
});

test('when the client ends its side, what waits and its last line without a newline are handled at once, in order', () => {
  const { seen, framer } = setup();
  framer.push(Buffer.from(`${lines(0, 100)}{:id "last" :kind :nope}`));
  expect(seen()).toEqual(ids(0, 64));
  framer.end();
  expect(seen()).toEqual([...ids(0, 100), 'last']);
});

test('when the socket closes, what waits is handled at once, in order', () => {
  const { seen, framer } = setup();
  framer.push(Buffer.from(lines(0, 100)));
  framer.close();
  expect(seen()).toEqual(ids(0, 100));
});
