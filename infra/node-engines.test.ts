import fs from 'node:fs';
import path from 'node:path';
import { engineDisagreements, lowestOfEach, satisfies } from './test-support/node-engines';

const root = path.resolve(__dirname, '..');
const engine = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

describe('the Node range package.json claims', () => {
  it('is accepted by every installed dependency, at the lowest version of each of its lines (Node 20 among them)', () => {
    const claimed = lowestOfEach(engine);
    expect(claimed).toContain('20.19.0');
    // Nothing to leave out: each disagreement names the package, its range and the versions it refuses.
    expect(engineDisagreements(root, claimed)).toEqual([]);
  });

  it('is the range the README and docs/local-stack.md state', () => {
    const lowest = lowestOfEach(engine).map((v) => v.replace(/\.0$/, '').replace(/\.0$/, ''));
    const said = `Node ${lowest[0]}+ (or ${lowest.slice(1).map((v) => `${v}+`).join(', ')})`;
    expect(said).toBe('Node 20.19+ (or 22.13+, 24+)');
    expect(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).toContain(said);
    expect(fs.readFileSync(path.join(root, 'docs/local-stack.md'), 'utf8').replace(/\s+/g, ' ')).toContain('Node 20.19+ (or 22.13+, or 24+)');
  });
});

describe('satisfies (the engines ranges read)', () => {
  it.each([
    ['20.19.0', '>=22', false],
    ['22.13.0', '>=22', true],
    ['20.19.0', '>= 20.3.0', true],
    ['20.19.0', '^18.18.0 || ^20.9.0 || >=21.1.0', true],
    ['20.8.0', '^18.18.0 || ^20.9.0 || >=21.1.0', false],
    ['21.0.0', '^20.19.0 || ^22.13.0 || >=24', false],
    ['24.0.0', '^20.19.0 || ^22.13.0 || >=24', true],
    ['20.19.0', '18 || 20 || >=22', true],
    ['21.5.0', '18 || 20 || >=22', false],
    ['20.19.0', '>=16 || 14 >=14.17', true],
    ['14.16.0', '>=16 || 14 >=14.17', false],
    ['20.19.0', '>=0.8.x', true],
    ['20.19.0', '*', true],
    ['0.8.5', '^0.8', true],
    ['0.9.0', '^0.8', false],
    ['1.2.9', '~1.2.3', true],
    ['1.3.0', '~1.2.3', false],
    ['20.19.0', '18 - 20', true],
    ['21.0.0', '18 - 20', false],
    ['20.19.0', '<20.19', false],
  ])('%s in "%s": %s', (version, range, expected) => {
    expect(satisfies(version, range)).toBe(expected);
  });

  it('refuses a range it cannot read instead of passing it', () => {
    expect(() => satisfies('20.19.0', '>=20 <lts')).toThrow(/cannot read/);
  });
});
