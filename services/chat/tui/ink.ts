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

export async function loadInk(): Promise<Ink> {
  loaded ??= (await import(INK)) as Ink;
  return loaded;
}

/** The loaded module (loadInk must have resolved first). */
export function ink(): Ink {
  if (!loaded) throw new Error('ink() before loadInk()');
  return loaded;
}
