import fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import { storeFunctions } from '../contracts/session-store/functions';
import { storeJsonSchemas } from '../contracts/session-store/json-schema';
import { renderStoreSchemas, STORE_SCHEMA_FILE } from './gen-schemas';

/** The JSON Schema docs are generated from the zod contracts, current, and agree with them. */
describe('session store JSON Schema docs', () => {
  test('the committed file is what `npm run docs:schemas` generates now', () => {
    expect(fs.readFileSync(STORE_SCHEMA_FILE, 'utf8')).toBe(renderStoreSchemas());
  });

  const docs = storeJsonSchemas();
  const ajv = new Ajv2020({ strict: false, logger: false });

  test('every function and event has a schema that compiles', () => {
    expect(Object.keys(docs.functions).sort()).toEqual(Object.values(storeFunctions).map((f) => f.wire).sort());
    expect(Object.keys(docs.events).sort()).toEqual(['created', 'deleted', 'message-added', 'message-updated', 'meta-updated', 'status-changed']);
    for (const f of Object.values(docs.functions)) {
      ajv.compile(f.request as object);
      ajv.compile(f.reply as object);
    }
  });

  // Requests as callers send them: the generated schema and the zod schema must give the same verdict.
  const user = { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 1 };
  const samples: Array<[string, unknown]> = [
    ['append', { session_id: 's', message: user }],
    ['append', { session_id: 's', message: user, entry_id: 'e1', parent_id: 'e0', origin: 'x' }],
    ['append', { session_id: '', message: user }],
    ['append', { session_id: 's', message: { ...user, role: 'robot' } }],
    ['append', { session_id: 's', message: user, surprise: true }],
    ['append', { session_id: 's', message: { ...user, timestamp: 'now' } }],
    ['create', {}],
    ['create', { title: 3 }],
    ['list', { order: 'created_asc', limit: 10 }],
    ['list', { order: 'sideways' }],
    ['set-status', { session_id: 's', status: 'error', reason: 'boom' }],
    ['set-status', { session_id: 's', status: 'sleeping' }],
    ['update-message', { session_id: 's', entry_id: 'e', content: [{ type: 'text', text: 'x' }], expected_revision: 2 }],
    ['update-message', { session_id: 's', entry_id: 'e', content: [], expected_revision: -1 }],
    ['messages', { session_id: 's', roles: ['user', 'assistant'], include_custom: true }],
    ['messages', { session_id: 's', roles: ['wizard'] }],
    ['fork', { session_id: 's' }],
  ];
  test.each(samples)('%s %j: the JSON Schema agrees with zod', (wire, body) => {
    const fn = Object.values(storeFunctions).find((f) => f.wire === wire)!;
    const validate = ajv.compile(docs.functions[wire]!.request as object);
    expect(validate(body)).toBe(fn.request.safeParse(body).success);
  });
});
