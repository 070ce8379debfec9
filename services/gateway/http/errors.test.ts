import { Hono } from 'hono';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { errorResponse, toStrandError } from './errors';

/**
 * The one error handler: a known error keeps its code and message; anything unforeseen answers 500
 * INTERNAL with a generic message — never its own text or stack — as every HTTP route does.
 */
function appThrowing(err: unknown): Hono {
  const app = new Hono();
  app.get('/boom', () => {
    throw err;
  });
  app.onError((e, c) => errorResponse(c, toStrandError(e)));
  return app;
}

test('an unforeseen error answers 500 INTERNAL without its message or stack', async () => {
  const secret = new Error('ECONNRESET at /home/ada/secret/path.ts:42');
  const res = await appThrowing(secret).request('/boom');
  expect(res.status).toBe(500);
  const text = await res.text();
  expect(JSON.parse(text)).toEqual({ error: { code: 'INTERNAL', message: 'internal error (see the gateway log)', details: {} } });
  expect(text).not.toMatch(/secret|ECONNRESET|\.ts:|at /);
});

test('a StrandError keeps its code, status and message; UNAVAILABLE says when to retry', async () => {
  const busy = await appThrowing(new StrandError(ErrorCode.SESSION_BUSY, 'a turn is running')).request('/boom');
  expect([busy.status, ((await busy.json()) as any).error]).toEqual([409, { code: 'SESSION_BUSY', message: 'a turn is running', details: {} }]);
  const down = await appThrowing(new StrandError(ErrorCode.UNAVAILABLE, 'Temporal did not answer')).request('/boom');
  expect([down.status, down.headers.get('retry-after')]).toEqual([503, '2']);
  const llm = await appThrowing(new StrandError(ErrorCode.LLM_API_ERROR, 'anthropic refused', { kind: 'permanent' })).request('/boom');
  expect([llm.status, ((await llm.json()) as any).error.details]).toEqual([502, { kind: 'permanent' }]);
});
