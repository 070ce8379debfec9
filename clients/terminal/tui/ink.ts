/**
 * Ink, loaded once at start. Ink 6 is an ES module whose layout engine (yoga-layout) uses top-level
 * await, and such a module graph cannot be `require`d, not even by Node 20's require(esm); this
 * project's TypeScript runs as CommonJS, so Ink is brought in by `import()` (which tsx keeps as a real
 * dynamic import) before anything renders, and components reach it through `ink()`.
 *
 * The type comes from Ink's declaration file by path: the project resolves modules the classic Node
 * way, which does not read package.json `exports`, the only place Ink names its types.
 */
import type * as InkModule from '../../../node_modules/ink/build/index.js';

export type Ink = typeof InkModule;
export type Key = InkModule.Key;

let loaded: Ink | undefined;
/** A specifier TypeScript does not resolve (see above); tsx and Node load it as any other. */
const INK = 'ink';

/**
 * Ink decides once, when its module is evaluated, whether it runs "in CI" (the `CI` or
 * `CONTINUOUS_INTEGRATION` variable set): then it renders only the last frame, at exit. `strand chat`
 * is only ever rendered into a terminal, and shells inside dev containers and CI jobs (a person's
 * tmux there, our own tests) often carry `CI=true`; the chat would sit blank until it quits. So the
 * two variables are hidden while Ink loads and put back at once.
 */
const CI_VARIABLES = ['CI', 'CONTINUOUS_INTEGRATION'];

export async function loadInk(): Promise<Ink> {
  if (loaded) return loaded;
  const hidden = CI_VARIABLES.filter((name) => name in process.env).map((name) => [name, process.env[name]] as const);
  for (const [name] of hidden) delete process.env[name];
  try {
    loaded = (await import(INK)) as Ink;
  } finally {
    for (const [name, value] of hidden) process.env[name] = value;
  }
  return loaded;
}

/** The loaded module (loadInk must have resolved first). */
export function ink(): Ink {
  if (!loaded) throw new Error('ink() before loadInk()');
  return loaded;
}
