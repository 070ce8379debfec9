import { parseArgs } from 'node:util';
import { installCli, uninstallCli } from './install-cli';

/** `npm run install-cli [-- --dir DIR] [--force]` and `npm run uninstall-cli [-- --dir DIR]` (docs/chat.md). */
function main(): void {
  const { values, positionals } = parseArgs({ args: process.argv.slice(2), options: { dir: { type: 'string' }, force: { type: 'boolean' } }, allowPositionals: true, strict: true });
  const remove = positionals[0] === 'remove';
  const report = remove ? uninstallCli({ binDir: values.dir }) : installCli({ binDir: values.dir, force: !!values.force });
  for (const line of report.lines) console.log(line);
}

try {
  main();
} catch (err) {
  console.error(`install-cli: ${(err as Error).message}`);
  process.exit(1);
}
