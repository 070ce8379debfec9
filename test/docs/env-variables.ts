import fs from 'node:fs';
import path from 'node:path';

/**
 * The environment variables the code names and the ones docs/configuration.md documents, so a test
 * can hold the two lists to each other.
 */

/** Where the code that runs (services, their tools, scripts, harnesses, benchmarks) lives. */
const CODE_DIRS = ['services', 'activities', 'workflows', 'contracts', 'infra', 'bin', 'test/harness', 'bench'];
const CODE_FILES = ['docker-compose.yml'];
const CODE_EXT = /\.(ts|cjs|mjs|js|sh|ya?ml)$|(^|\/)Dockerfile[^/]*$/;
const SKIP_DIRS = new Set(['node_modules', 'results', '.strand']);

function walk(dir: string, out: string[]): void {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(full, out);
    } else if (CODE_EXT.test(full) && !full.endsWith('.test.ts')) {
      out.push(full);
    }
  }
}

/** The code files (tests themselves excluded: a variable only a test sets configures nothing). */
function codeFiles(root: string): string[] {
  const files: string[] = [];
  for (const dir of CODE_DIRS) walk(path.join(root, dir), files);
  for (const file of CODE_FILES) if (fs.existsSync(path.join(root, file))) files.push(path.join(root, file));
  return files;
}

/** A file's text without its comment lines: a name mentioned only in a comment is not used. */
function codeText(file: string): string {
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\*|\/\/|\/\*|#)/.test(line))
    .join('\n');
}

/** Every `STRAND_*` name the code uses, with the files using it. */
export function strandNamesInCode(root: string): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const file of codeFiles(root)) {
    for (const m of codeText(file).matchAll(/\bSTRAND_[A-Z0-9_]*[A-Z0-9]\b/g)) {
      const files = names.get(m[0]) ?? [];
      const rel = path.relative(root, file);
      if (!files.includes(rel)) files.push(rel);
      names.set(m[0], files);
    }
  }
  return names;
}

/** Whether some code file names `name` at all (outside comments). */
export function codeMentions(root: string, name: string): boolean {
  const word = new RegExp(`\\b${name}\\b`);
  return codeFiles(root).some((file) => word.test(codeText(file)));
}

/** Whether some code file reads `name` from an environment (`env.X`, `env['X']`, `…FromEnv(…, 'X')`, `$X`). */
export function codeReadsFromEnv(root: string, name: string): boolean {
  const read = new RegExp(`env\\??\\.${name}\\b|env\\[\\s*['"\`]${name}['"\`]|[Ee]nv\\w*\\([^)]*['"]${name}['"]|\\$\\{?${name}\\b`);
  return codeFiles(root).some((file) => read.test(codeText(file)));
}

export interface DocumentedVariables {
  /** Variables in the first column of a table, with the line that documents each. */
  variables: Map<string, number>;
  /** Names listed under the "Names that are not variables" heading. */
  notVariables: Set<string>;
}

const NOT_VARIABLES_HEADING = /^#+\s+Names that are not variables\s*$/;

/** Reads docs/configuration.md: the first cell of every table row, and the not-variables section. */
export function documentedVariables(markdown: string): DocumentedVariables {
  const variables = new Map<string, number>();
  const notVariables = new Set<string>();
  let inNotVariables = false;
  markdown.split('\n').forEach((line, i) => {
    if (/^#+\s/.test(line)) inNotVariables = NOT_VARIABLES_HEADING.test(line);
    const names = (text: string) => [...text.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])`/g)].map((m) => m[1]!);
    if (inNotVariables) {
      for (const name of names(line)) notVariables.add(name);
      return;
    }
    const firstCell = /^\|([^|]*)\|/.exec(line)?.[1];
    if (firstCell === undefined) return;
    for (const name of names(firstCell)) if (!variables.has(name)) variables.set(name, i + 1);
  });
  return { variables, notVariables };
}
