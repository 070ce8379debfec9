import { Writable } from 'node:stream';
import pino from 'pino';
import { ErrorCode, StrandError } from '../../../../contracts/errors';
import { EdnErrorCode } from '../protocol';
import { toEdnError, toQueryError } from './errors';

/** PERMISSION_DENIED and TRANSCRIPT_ERROR over EDN: runtime failures keeping their message and strand code; a transcript failure is logged too. */
const lines: Array<{ level: number; msg: string }> = [];
const log = pino({ level: 'debug' }, new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) }));

test('a project directory the gateway may not use is runtime/failed (not transport/unauthorized, which is about tokens)', () => {
  const err = toEdnError(new StrandError(ErrorCode.PERMISSION_DENIED, "project_path /srv/p: the gateway's user lacks read permission (to list it) on it"), log, { op: 'handshake' });
  expect([err.code, err.message, err.data, err.retryable]).toEqual([EdnErrorCode.failed, "project_path /srv/p: the gateway's user lacks read permission (to list it) on it", { 'strand-code': 'PERMISSION_DENIED' }, undefined]);
});

test('a transcript that cannot be written is runtime/failed (query-failed for a read op), with its message, and logged', () => {
  lines.length = 0;
  const failure = new StrandError(ErrorCode.TRANSCRIPT_ERROR, 'the transcript of session s1 could not be written to /tmp/x.html (no space left on the device)');
  const err = toEdnError(failure, log, { op: 'export_html', session: 's1' });
  expect([err.code, err.message, err.data]).toEqual([EdnErrorCode.failed, failure.message, { 'strand-code': 'TRANSCRIPT_ERROR' }]);
  expect(toQueryError(failure, log, { op: 'export_html' }).code).toBe(EdnErrorCode.queryFailed);
  expect(lines.map((l) => [l.level, l.msg])).toEqual([
    [50, 'an EDN request failed'],
    [50, 'an EDN request failed'],
  ]);
  // A client's mistake is not logged.
  toEdnError(new StrandError(ErrorCode.SESSION_NOT_FOUND, 'no session x'), log, { op: 'switch_session' });
  expect(lines).toHaveLength(2);
});
