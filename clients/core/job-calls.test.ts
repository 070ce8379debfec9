import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from './api-client';
import { jobCallsOn, jobDurationMs, jobIdOfSession, jobSessionId, jobStatusText } from './job-calls';

/**
 * The jobs' routes as the page and the operator view call them, against a real local HTTP server:
 * the method, path (ids encoded), body and token of each, and what each returns.
 */

test('each call sends its route, body and token, and returns what the gateway answered', async () => {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'} ${body}`);
      const markdown = req.url?.includes('format=markdown');
      res.writeHead(200, { 'Content-Type': markdown ? 'text/markdown' : 'application/json' });
      res.end(markdown ? '# Job a b: succeeded\n' : JSON.stringify(req.url === '/api/jobs?limit=200' ? { jobs: [{ job_id: 'j1' }], running_turns: [] } : { job_id: 'j1', by: 'alice', status: 'cancel_requested' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const calls = jobCallsOn(new ApiClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: () => 'tok' }));
  try {
    expect(await calls.list(200)).toEqual([{ job_id: 'j1' }]);
    expect((await calls.view('a b')).job_id).toBe('j1');
    expect((await calls.cancel('j1')).status).toBe('cancel_requested');
    expect((await calls.answer('j1', 'call/1', 'deny', 'not that')).by).toBe('alice');
    await calls.answer('j1', 'call_2', 'allow');
    expect(await calls.reportMarkdown('a b')).toBe('# Job a b: succeeded\n');
    expect(seen).toEqual([
      'GET /api/jobs?limit=200 Bearer tok ',
      'GET /api/jobs/a%20b Bearer tok ',
      'POST /api/jobs/j1/cancel Bearer tok {}',
      'POST /api/jobs/j1/escalations/call%2F1 Bearer tok {"decision":"deny","reason":"not that"}',
      'POST /api/jobs/j1/escalations/call_2 Bearer tok {"decision":"allow"}',
      'GET /api/jobs/a%20b/report?format=markdown Bearer tok ',
    ]);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test("a job's session is job-<id>; only such a session names a job; a duration runs to now until the job closed", () => {
  expect(jobSessionId('fix-42')).toBe('job-fix-42');
  expect(jobIdOfSession('job-fix-42')).toBe('fix-42');
  expect(jobIdOfSession('job-')).toBeUndefined();
  expect(jobIdOfSession('0b7c1d2e')).toBeUndefined();
  expect(jobDurationMs({ started_at: 1_000, closed_at: null }, 61_000)).toBe(60_000);
  expect(jobDurationMs({ started_at: 1_000, closed_at: 5_000 }, 61_000)).toBe(4_000);
  expect([jobStatusText('needs_human'), jobStatusText('timed_out'), jobStatusText('succeeded')]).toEqual(['needs a person', 'timed out', 'succeeded']);
});
