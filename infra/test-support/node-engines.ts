import fs from 'node:fs';
import path from 'node:path';

/**
 * Whether the installed dependencies accept the Node versions `package.json`'s `engines.node` claims
 * (docs/local-stack.md: the README's Node range is that line). npm only warns (EBADENGINE) when a
 * package declares a narrower range, so a dependency bumped to one that wants a newer Node would pass
 * unnoticed; infra/node-engines.test.ts holds the line.
 *
 * The ranges are read with the subset of npm's range grammar that `engines.node` fields use: `||`
 * alternatives of space-separated comparators (`>=`, `>`, `<=`, `<`, `=`), caret and tilde ranges,
 * x-ranges (`20`, `20.x`, `*`) and hyphen ranges. Anything else throws, so a field this cannot read
 * fails the test instead of passing it.
 */

type Version = [number, number, number];

function parseVersion(text: string): Version {
  const match = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  if (!match) throw new Error(`not a version: "${text}"`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** A partial version (`20`, `20.19`, `20.x`, `*`): its numbers, as many as given before a wildcard. */
function parsePartial(text: string, range: string): number[] {
  if (text === '' || text === '*' || text === 'x' || text === 'X') return [];
  const parts = text.replace(/^v/, '').split('.');
  const numbers: number[] = [];
  for (const part of parts) {
    if (/^[xX*]$/.test(part)) break;
    if (!/^\d+$/.test(part)) throw new Error(`cannot read the range "${range}" (at "${text}")`);
    numbers.push(Number(part));
  }
  if (parts.length > 3) throw new Error(`cannot read the range "${range}" (at "${text}")`);
  return numbers;
}

/** The partial version's lowest version, and the first version above it (undefined: none, `*`). */
function bounds(numbers: number[]): { low: Version; next: Version | undefined } {
  const [major = 0, minor = 0, patch = 0] = numbers;
  const low: Version = [major, minor, patch];
  if (numbers.length === 0) return { low, next: undefined };
  if (numbers.length === 1) return { low, next: [major + 1, 0, 0] };
  if (numbers.length === 2) return { low, next: [major, minor + 1, 0] };
  return { low, next: [major, minor, patch + 1] };
}

type Test = (v: Version) => boolean;

function comparator(token: string, range: string): Test {
  const match = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(token)!;
  const op = match[1] ?? '';
  const numbers = parsePartial(match[2]!, range);
  const { low, next } = bounds(numbers);
  const atLeast = (v: Version) => compare(v, low) >= 0;
  const below = (v: Version) => next === undefined || compare(v, next) < 0;
  switch (op) {
    case '':
    case '=':
      return (v) => atLeast(v) && below(v);
    case '>=':
      return atLeast;
    case '>':
      return (v) => next !== undefined && compare(v, next) >= 0;
    case '<':
      return (v) => compare(v, low) < 0;
    case '<=':
      return below;
    case '~': {
      const upper: Version = numbers.length <= 1 ? [low[0] + 1, 0, 0] : [low[0], low[1] + 1, 0];
      return (v) => atLeast(v) && (numbers.length === 0 || compare(v, upper) < 0);
    }
    case '^': {
      // The first non-zero number given may not change (`^0.8` is 0.8.x; `^20.19.0` is 20.x from 20.19.0).
      const upper: Version = low[0] > 0 || numbers.length <= 1 ? [low[0] + 1, 0, 0] : low[1] > 0 || numbers.length === 2 ? [0, low[1] + 1, 0] : [0, 0, low[2] + 1];
      return (v) => atLeast(v) && (numbers.length === 0 || compare(v, upper) < 0);
    }
    default:
      throw new Error(`cannot read the range "${range}"`);
  }
}

/** Whether `version` (`20.19.0`) is in the npm range `range` (`^20.19.0 || >=22`). */
export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version);
  return range.split('||').some((alternative) => {
    const text = alternative.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, '$1');
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
    if (hyphen) return comparator(`>=${hyphen[1]}`, range)(v) && comparator(`<=${hyphen[2]}`, range)(v);
    const tokens = text === '' ? ['*'] : text.split(/\s+/);
    return tokens.every((token) => comparator(token, range)(v));
  });
}

/** The lowest Node version of each alternative of `range` (`^20.19.0 || >=24` → 20.19.0, 24.0.0). */
export function lowestOfEach(range: string): string[] {
  return range.split('||').map((alternative) => {
    const token = alternative.trim().replace(/^(>=|\^|~|=)\s*/, '');
    if (!/^\d+(\.\d+){0,2}$/.test(token)) throw new Error(`cannot take the lowest version of "${alternative.trim()}"`);
    return bounds(parsePartial(token, range)).low.join('.');
  });
}

export interface EngineDisagreement {
  /** The package's folder under the root (`node_modules/vega-lite`). */
  where: string;
  name: string;
  version: string;
  engine: string;
  /** The Node versions `package.json` claims that the package does not accept. */
  refused: string[];
}

/**
 * The installed packages (every folder the lock file lists that is on disk: optional packages of
 * another platform are not) whose own `engines.node`, read from their package.json, refuses one of
 * `nodeVersions`.
 */
export function engineDisagreements(root: string, nodeVersions: string[]): EngineDisagreement[] {
  const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };
  const found: EngineDisagreement[] = [];
  for (const where of Object.keys(lock.packages)) {
    if (!where.startsWith('node_modules/')) continue;
    const file = path.join(root, where, 'package.json');
    if (!fs.existsSync(file)) continue;
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string; engines?: { node?: unknown } };
    const engine = pkg.engines?.node;
    if (typeof engine !== 'string') continue;
    const refused = nodeVersions.filter((v) => !satisfies(v, engine));
    if (refused.length) found.push({ where, name: pkg.name ?? where, version: pkg.version ?? '?', engine, refused });
  }
  return found;
}
