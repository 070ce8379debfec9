import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { installCli, CLONE_COMMAND, uninstallCli } from './install-cli';

let home: string;
beforeEach(() => {
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-install-cli-'));
});
afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

const env = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ HOME: home, PATH: '/usr/bin:/bin', ...extra });

test('links ~/.local/bin/strand to this clone, and the linked command runs from any folder', () => {
  const report = installCli({ env: env() });
  const link = path.join(home, '.local', 'bin', 'strand');
  expect(report.link).toBe(link);
  expect(fs.readlinkSync(link)).toBe(CLONE_COMMAND);
  expect(report.lines.join('\n')).toContain(`${path.join(home, '.local', 'bin')} is not on your PATH`);
  // A project folder of its own: no package.json there, as `npm run strand` would need.
  const project = fs.mkdtempSync(path.join(home, 'project-'));
  const run = spawnSync(link, ['chat', '--help'], { cwd: project, encoding: 'utf8', timeout: 60_000 });
  expect(run.status).toBe(0);
  expect(run.stdout).toContain('usage: strand chat [--cwd DIR]');
}, 90_000);

test('a second install is a no-op; a folder on PATH is said to be', () => {
  const bin = path.join(home, 'bin');
  installCli({ binDir: bin, env: env() });
  const again = installCli({ binDir: bin, env: env({ PATH: `${bin}:/usr/bin` }) });
  expect(again.lines).toEqual([`${path.join(bin, 'strand')} already runs this clone's strand (${CLONE_COMMAND})`, expect.stringContaining('strand is on your PATH')]);
});

test('another strand is not replaced without --force, and not removed by uninstall', () => {
  const bin = path.join(home, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'strand'), '#!/bin/sh\necho other\n');
  expect(() => installCli({ binDir: bin, env: env() })).toThrow(/exists and is a file that is not a link: not replaced/);
  expect(() => uninstallCli({ binDir: bin })).toThrow(/is not this clone's strand: left alone/);
  expect(fs.readFileSync(path.join(bin, 'strand'), 'utf8')).toContain('other');
  installCli({ binDir: bin, force: true, env: env() });
  expect(fs.readlinkSync(path.join(bin, 'strand'))).toBe(CLONE_COMMAND);
  expect(uninstallCli({ binDir: bin }).lines).toEqual([`removed ${path.join(bin, 'strand')}`]);
  expect(fs.existsSync(path.join(bin, 'strand'))).toBe(false);
});

test('XDG_BIN_HOME is honoured', () => {
  const xdg = path.join(home, 'xdg-bin');
  expect(installCli({ env: env({ XDG_BIN_HOME: xdg }) }).link).toBe(path.join(xdg, 'strand'));
});
