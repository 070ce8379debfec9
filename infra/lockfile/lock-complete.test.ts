import fs from 'node:fs';
import path from 'node:path';
import { completeLock, platformOf } from './complete-platform-packages';

/** `npm ci` refuses a lock that lacks any optional dependency a locked package declares. */
describe('package-lock.json', () => {
  const lock = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package-lock.json'), 'utf8'));

  test('lists every optional platform package its packages declare (what npm ci checks)', () => {
    const missing: string[] = [];
    for (const [key, pkg] of Object.entries<any>(lock.packages)) {
      for (const name of Object.keys(pkg.optionalDependencies ?? {})) {
        if (!lock.packages[`node_modules/${name}`] && !lock.packages[`${key}/node_modules/${name}`] && platformOf(name)) missing.push(name);
      }
    }
    expect(missing).toEqual([]);
  });

  test('completing it again adds nothing', () => {
    expect(completeLock(structuredClone(lock))).toEqual([]);
  });

  test('platform fields follow the package name', () => {
    expect(platformOf('@swc/core-darwin-arm64')).toEqual({ os: ['darwin'], cpu: ['arm64'] });
    expect(platformOf('@swc/core-linux-x64-musl')).toEqual({ os: ['linux'], cpu: ['x64'], libc: ['musl'] });
    expect(platformOf('@unrs/resolver-binding-linux-arm-gnueabihf')).toEqual({ os: ['linux'], cpu: ['arm'], libc: ['glibc'] });
    expect(platformOf('@swc/core-win32-ia32-msvc')).toEqual({ os: ['win32'], cpu: ['ia32'] });
    expect(platformOf('left-pad')).toBeUndefined();
  });
});
