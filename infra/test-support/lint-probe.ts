import { ESLint } from 'eslint';
import path from 'node:path';

/**
 * Lints snippets as if they lived at given paths and prints the restricted-import messages per
 * snippet as JSON. Runs as its own process because ESLint loads its flat config with a dynamic
 * import, which Jest's module sandbox does not allow. Input (stdin): `[{file, code}]`.
 */
async function main(): Promise<void> {
  const root = path.resolve(__dirname, '../..');
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const cases = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { file: string; code: string }[];
  const eslint = new ESLint({ cwd: root });
  const out: string[][] = [];
  for (const c of cases) {
    const [result] = await eslint.lintText(c.code, { filePath: path.join(root, c.file) });
    out.push((result?.messages ?? []).filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').map((m) => m.message));
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
