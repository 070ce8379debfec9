import fs from 'node:fs';
import path from 'node:path';
import { storeJsonSchemas } from '../contracts/session-store/json-schema';

/** Writes the JSON Schema docs generated from contracts/ (`npm run docs:schemas`). */
export const STORE_SCHEMA_FILE = path.join(__dirname, '..', 'docs', 'schemas', 'session-store.schema.json');

export function renderStoreSchemas(): string {
  return JSON.stringify(storeJsonSchemas(), null, 2) + '\n';
}

if (require.main === module) {
  fs.mkdirSync(path.dirname(STORE_SCHEMA_FILE), { recursive: true });
  fs.writeFileSync(STORE_SCHEMA_FILE, renderStoreSchemas());
  console.log(`wrote ${path.relative(process.cwd(), STORE_SCHEMA_FILE)}`);
}
