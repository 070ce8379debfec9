import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * The README's "Try it" block, run as written by bash against a real stack (no provider key, so the
 * model is scripted/echo): it must end by printing the stored answer, not an empty list. Only the
 * address changes, from the `npm start` port to the test stack's free one.
 */

const root = path.resolve(__dirname, '../..');

/** The first ```sh block under the README's "## Try it" heading. */
function tryItBlock(): string {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Try it'));
  const block = /```sh\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no sh block under "## Try it"');
  return block;
}

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
});

test("the README's Try it prints the answer of the turn it started", () => {
  const script = tryItBlock();
  expect(script).toContain('localhost:9420');
  const address = new URL(stack.urls.gateway).host;
  const env = { ...process.env };
  for (const key of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'OPENAI_BASE_URL']) delete env[key];
  // `timeout` bounds the example's own wait loop, so a broken example fails instead of hanging; the
  // script runs in a session of its own and ends every process it left in the background (a
  // backgrounded `curl -N` would hold the output open and this test with it).
  const body = `trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\nset -e\n${script.replaceAll('localhost:9420', address)}`;
  const run = spawnSync('timeout', ['120', 'setsid', 'bash', '-c', body], { encoding: 'utf8', env });
  expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  const lines = run.stdout.trim().split('\n');
  expect(lines[lines.length - 1]).toBe('"text":"You said: hello strand"');
}, 180_000);
