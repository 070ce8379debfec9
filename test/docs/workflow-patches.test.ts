import fs from 'node:fs';
import path from 'node:path';

/**
 * Every `wf.patched(...)` id the workflows ask for is listed in docs/workflow-versioning.md's table, so
 * whoever removes a patch (or deploys past one) knows what it guards.
 */
const root = path.resolve(__dirname, '..', '..');

function workflowSources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return workflowSources(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });
}

test('every patch id asked in workflows/ is in the versioning doc', () => {
  const sources = workflowSources(path.join(root, 'workflows')).map((f) => fs.readFileSync(f, 'utf8'));
  const all = sources.join('\n');
  const names = new Set(sources.flatMap((s) => [...s.matchAll(/wf\.patched\(\s*([A-Za-z_][A-Za-z0-9_]*|'[^']+')\s*\)/g)].map((m) => m[1]!)));
  expect(names.size).toBeGreaterThan(0);
  const ids = [...names].map((name) => {
    if (name.startsWith("'")) return name.slice(1, -1);
    const defined = new RegExp(`\\b${name}\\s*=\\s*'([^']+)'`).exec(all);
    if (!defined) throw new Error(`the patch constant ${name} is not defined as a string in workflows/`);
    return defined[1]!;
  });
  const doc = fs.readFileSync(path.join(root, 'docs', 'workflow-versioning.md'), 'utf8');
  expect(ids.filter((id) => !doc.includes(`| \`${id}\` |`))).toEqual([]);
});
