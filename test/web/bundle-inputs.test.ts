import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildWeb } from '../../clients/web/build';

/**
 * What the pages' bundles are built from. zod must stay out: it probes `new Function` when it loads a
 * schema, which the pages' Content-Security-Policy reports as a violation (seen once when the page
 * imported a chat module that reads the model catalog). The browser tests catch that only on the pages
 * and paths they drive; this catches any import that pulls zod (or the worker's code, or the terminal
 * chat's gateway client) in. Pure shared modules (the chat view, the gateway's step-text rule) are fine.
 */
test('the web bundles are built without zod or any server-side module', async () => {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-web-inputs-'));
  try {
    const manifest = await buildWeb({ outDir: path.join(out, 'web'), force: true });
    const inputs = Object.keys(manifest.inputs);
    expect(inputs.some((i) => i.startsWith('clients/web/src/'))).toBe(true);
    expect(inputs.filter((i) => /node_modules\/zod\//.test(i))).toEqual([]);
    expect(inputs.filter((i) => /^(activities|workflows|infra)\//.test(i) || i === 'clients/terminal/gateway-client.ts')).toEqual([]);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}, 60_000);
