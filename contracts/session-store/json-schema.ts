import { z } from 'zod';
import { storeEventPayloadSchemas } from './events';
import { storeFunctions } from './functions';
import { storeFunctionSubject } from './subjects';

/**
 * JSON Schema (draft 2020-12) for every store function's request and reply and every event payload,
 * generated from the same zod values the store validates with, so the docs cannot drift from the
 * code. `npm run docs:schemas` writes it to docs/schemas/session-store.schema.json; a test checks the
 * committed file is current.
 */
export function storeJsonSchemas() {
  const functions: Record<string, { subject: string; request: unknown; reply: unknown }> = {};
  for (const f of Object.values(storeFunctions)) {
    functions[f.wire] = {
      subject: storeFunctionSubject(f.wire),
      // Requests are described as a caller writes them (defaults optional), replies as the store sends them.
      request: z.toJSONSchema(f.request as z.ZodType, { io: 'input', unrepresentable: 'any' }),
      reply: z.toJSONSchema(f.reply as z.ZodType, { io: 'output', unrepresentable: 'any' }),
    };
  }
  const events: Record<string, { subject: string; payload: unknown }> = {};
  for (const [type, schema] of Object.entries(storeEventPayloadSchemas)) {
    events[type] = {
      subject: `session.evt.${type}.<session token>`,
      payload: z.toJSONSchema(schema as z.ZodType, { io: 'output', unrepresentable: 'any' }),
    };
  }
  return { title: 'strand session store wire shapes', spec: 'docs/store.md', functions, events };
}
