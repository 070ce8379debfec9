import { z } from 'zod';
import { settingsBodySchema } from './http-api';
import { mcpServersSchema } from './mcp';
import { budgetSchema } from './session-settings';
import { describeRequestIssues, strictRequest } from './strict-request';

const issuesOf = (schema: z.ZodType, value: unknown) => {
  const parsed = schema.safeParse(value);
  return parsed.success ? 'accepted' : describeRequestIssues(parsed.error);
};

test('an unknown key at any depth is refused, naming its own path', () => {
  const strict = strictRequest(settingsBodySchema);
  expect(issuesOf(strict, { approval: { policy: 'plan' } })).toBe('approval.policy: unrecognized key');
  expect(issuesOf(strict, { approval: { plan_mode: true }, extra: 1, budget: { cap: 2 } })).toBe('budget.cap: unrecognized key; extra: unrecognized key');
  expect(issuesOf(strict, { approval: { plan_mode: true } })).toBe('accepted');
});

test('through arrays, unions, records, optionals and defaults', () => {
  const schema = strictRequest(
    z.object({
      list: z.array(z.object({ a: z.string() })).optional(),
      either: z.union([z.object({ x: z.number() }), z.object({ y: z.number() })]).optional(),
      map: z.record(z.string(), z.object({ v: z.number() })).optional(),
      later: z.object({ d: z.number() }).default({ d: 1 }),
    }),
  );
  expect(issuesOf(schema, { list: [{ a: 'ok' }, { a: 'ok', b: 1 }] })).toBe('list.1.b: unrecognized key');
  expect(issuesOf(schema, { map: { k: { v: 1, w: 2 } } })).toBe('map.k.w: unrecognized key');
  expect(issuesOf(schema, { later: { d: 2, e: 3 } })).toBe('later.e: unrecognized key');
  expect(issuesOf(schema, { either: { x: 1, z: 2 } })).not.toBe('accepted');
  expect(issuesOf(schema, { either: { y: 1 }, map: { k: { v: 1 } }, list: [] })).toBe('accepted');
});

test('the shared parts stay tolerant where they are not a request (stored data, config files)', () => {
  const request = strictRequest(z.object({ budget: budgetSchema, servers: mcpServersSchema }));
  expect(issuesOf(request, { budget: { max_tokens: 5, cap: 1 }, servers: {} })).toBe('budget.cap: unrecognized key');
  expect(budgetSchema.safeParse({ max_tokens: 5, cap: 1 }).success).toBe(true);
  expect(mcpServersSchema.safeParse({ files: { command: 'x', someOtherTool: true } }).success).toBe(true);
});

test('a deliberate catch-all is kept, its known fields still strict', () => {
  const schema = strictRequest(z.looseObject({ inner: z.object({ a: z.number() }) }));
  expect(issuesOf(schema, { inner: { a: 1 }, anything: true })).toBe('accepted');
  expect(issuesOf(schema, { inner: { a: 1, b: 2 } })).toBe('inner.b: unrecognized key');
});
