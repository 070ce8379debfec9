import { globToRegExpSource } from './glob';

/**
 * A small .gitignore matcher for workspaces that are not git repositories (in a repository git itself
 * answers, see file-list.ts). Covers what projects actually write: comments, `!` negation, trailing
 * `/` for directories only, patterns anchored by a `/`, `*`, `?`, `[...]` and `**`. Rules from deeper
 * .gitignore files come later and so win, as in git.
 */

interface Rule {
  /** Directory holding the .gitignore, workspace-relative (`''` for the root). */
  base: string;
  re: RegExp;
  negate: boolean;
  dirOnly: boolean;
}

export class IgnoreRules {
  private readonly rules: Rule[] = [];

  /** Adds the lines of the .gitignore found in directory `base` (workspace-relative, `''` for root). */
  add(base: string, text: string): void {
    for (const line of text.split(/\r?\n/)) {
      const rule = parseLine(base, line);
      if (rule) this.rules.push(rule);
    }
  }

  /** Whether `rel` (workspace-relative, `/`-separated) is ignored; the last matching rule decides. */
  ignores(rel: string, isDir: boolean): boolean {
    let ignored = false;
    for (const r of this.rules) {
      if (r.dirOnly && !isDir) continue;
      if (r.base !== '' && !rel.startsWith(`${r.base}/`)) continue;
      const sub = r.base === '' ? rel : rel.slice(r.base.length + 1);
      if (r.re.test(sub)) ignored = !r.negate;
    }
    return ignored;
  }
}

function parseLine(base: string, raw: string): Rule | undefined {
  // Trailing spaces are ignored unless escaped.
  let line = raw.replace(/(?<!\\)\s+$/, '');
  if (line === '' || line.startsWith('#')) return undefined;
  let negate = false;
  if (line.startsWith('!')) {
    negate = true;
    line = line.slice(1);
  } else if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
  }
  let dirOnly = false;
  if (line.endsWith('/')) {
    dirOnly = true;
    line = line.slice(0, -1);
  }
  if (line === '') return undefined;
  // A slash at the start or in the middle anchors the pattern to the .gitignore's directory;
  // otherwise it matches a name at any depth below it.
  const anchored = line.includes('/');
  if (line.startsWith('/')) line = line.slice(1);
  const source = globToRegExpSource(line, { braces: false });
  return { base, re: new RegExp(`^${anchored ? '' : '(?:.*/)?'}${source}$`), negate, dirOnly };
}
