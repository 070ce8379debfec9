import { Writable } from 'node:stream';
import pino from 'pino';
import { logContextFields, withLogFields, withoutLogFields } from './tracing-log-context';

/** A logger like createLogger's (the same mixin), writing its lines into an array. */
function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ base: null, timestamp: false, mixin: logContextFields }, sink), lines };
}

const fieldsOf = (line: Record<string, unknown>) => Object.fromEntries(Object.entries(line).filter(([k]) => k !== 'level'));

test('lines written inside withLogFields carry its fields, across awaits; a line of its own keeps its values and changes nothing after it', async () => {
  const { log, lines } = capture();
  await withLogFields({ request_id: 'r1', session: 's1' }, async () => {
    log.info({ session: 'own' }, 'a');
    await new Promise((r) => setImmediate(r));
    log.info('b');
    await withLogFields({ turn: 't2' }, async () => log.info('c'));
    log.info('d');
  });
  log.info('e');
  expect(lines.map(fieldsOf)).toEqual([
    { request_id: 'r1', session: 'own', msg: 'a' },
    { request_id: 'r1', session: 's1', msg: 'b' },
    { request_id: 'r1', session: 's1', turn: 't2', msg: 'c' },
    { request_id: 'r1', session: 's1', msg: 'd' },
    { msg: 'e' },
  ]);
});

test('work started with withoutLogFields names none of its starter’s ids, even when it runs on later', async () => {
  const { log, lines } = capture();
  let later: Promise<void> | undefined;
  withLogFields({ request_id: 'r1' }, () => {
    later = withoutLogFields(async () => {
      await new Promise((r) => setImmediate(r));
      log.info('pump');
    });
    log.info('request');
  });
  await later;
  expect(lines.map(fieldsOf)).toEqual([
    { request_id: 'r1', msg: 'request' },
    { msg: 'pump' },
  ]);
});
