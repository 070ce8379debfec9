import fs from 'node:fs';
import path from 'node:path';
import { codeSpansOf, linkProblem, linksOf, outsideReferences, repoPathIn } from './markdown-links';
import { codeMentions, codeReadsFromEnv, documentedVariables, strandNamesInCode } from './env-variables';

/**
 * The README and docs/ are read on a clone, which has nothing but the repository: every link must
 * land inside it, on something that exists, and the configuration page must list exactly the
 * variables the code reads (docs/readme-claims.md maps the README's behavioural claims to their tests).
 */

const root = path.resolve(__dirname, '../..');
const docsDir = path.join(root, 'docs');

function documents(): string[] {
  const found: string[] = [path.join(root, 'README.md'), path.join(root, 'bench/README.md')];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md')) found.push(full);
    }
  };
  walk(docsDir);
  return found;
}

const rel = (file: string) => path.relative(root, file);

describe('links of README.md, bench/README.md and docs/', () => {
  test('the documents exist', () => {
    const names = documents().map(rel);
    for (const doc of ['README.md', 'bench/README.md', 'docs/architecture.md', 'docs/http.md', 'docs/websocket.md', 'docs/edn.md', 'docs/events.md', 'docs/configuration.md', 'docs/store.md', 'docs/local-stack.md', 'docs/readme-claims.md']) {
      expect(names).toContain(doc);
    }
  });

  test.each(documents().map((f) => [rel(f), f]))('%s links only to files of this repository that exist', (_name, file) => {
    const text = fs.readFileSync(file, 'utf8');
    const problems = linksOf(text)
      .map((link) => ({ link, problem: linkProblem(root, file, link.target) }))
      .filter((p) => p.problem !== undefined)
      .map((p) => `line ${p.link.line}: ${p.problem}`);
    expect(problems).toEqual([]);
  });

  test.each(documents().map((f) => [rel(f), f]))('%s names only repository paths that exist and nothing outside the clone', (_name, file) => {
    const text = fs.readFileSync(file, 'utf8');
    const problems: string[] = [];
    text.split('\n').forEach((line, i) => {
      if (/\.\.\/shared\b|\bshared\/(specs|notes|seeds)\//.test(line)) problems.push(`line ${i + 1}: refers to a folder a clone does not have`);
    });
    for (const span of codeSpansOf(text)) {
      const p = repoPathIn(span.target);
      if (p && !fs.existsSync(path.join(root, p))) problems.push(`line ${span.line}: \`${span.target}\` does not exist`);
    }
    expect(problems).toEqual([]);
  });
});

/** Folders a clone does not track (installed or generated), skipped when scanning the code. */
const UNTRACKED = new Set(['node_modules', 'dist', 'coverage', 'scratch', '.strand', '.git']);
const CODE_FILE = /\.(ts|tsx|mjs|cjs|sh|ya?ml|css|json)$/;

/**
 * The code, its comments and every text it serves (the OpenAPI document, help texts, generated
 * schemas). test/docs/ is left out: its own cases spell the forbidden references on purpose.
 */
function codeFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (UNTRACKED.has(entry.name)) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (CODE_FILE.test(entry.name) && entry.name !== 'package-lock.json') found.push(full);
    }
  };
  walk(root);
  return found.filter((f) => !rel(f).startsWith('test/docs/'));
}

describe('no code, comment or served text cites a document outside the repository', () => {
  test('the scan covers the code', () => {
    const names = codeFiles().map(rel);
    expect(names).toEqual(expect.arrayContaining(['contracts/ws-rpc.ts', 'services/gateway/http/openapi/texts.ts', 'eslint.config.mjs', 'docs/schemas/session-store.schema.json']));
  });

  test('no file names specs/…, design.md, shared/… or seeds/…', () => {
    const problems = codeFiles().flatMap((file) => outsideReferences(fs.readFileSync(file, 'utf8')).map((line) => `${rel(file)}:${line}`));
    expect(problems).toEqual([]);
  });

  test.each(documents().map((f) => [rel(f), f]))('%s names none of them either', (_name, file) => {
    expect(outsideReferences(fs.readFileSync(file, 'utf8'))).toEqual([]);
  });
});

describe('the scanner behind these checks', () => {
  const file = path.join(root, 'README.md');
  test('finds inline links, references, autolinks and bare URLs, and skips code', () => {
    const text = ['[a](docs/http.md) ![b](x.png "t")', '[ref]: https://example.org/x', '<https://example.org/y> and http://example.org/z', '`[c](nowhere.md)`', '```', '[d](inside-fence.md)', '```'].join('\n');
    expect(linksOf(text).map((l) => l.target)).toEqual(['docs/http.md', 'x.png', 'https://example.org/x', 'https://example.org/y', 'http://example.org/z']);
  });
  test('finds references to documents outside the repository, and only those', () => {
    const text = ['// the wire format (specs/http-sse.md, "Errors")', ' * import rules of design.md §2', 'see ../shared/notes', 'from seeds/004-x.md', '// docs/http.md, "Errors"', 'seed 343436502, a design of its own', 'test/harness/shared-backoff.ts'].join('\n');
    expect(outsideReferences(text)).toEqual([1, 2, 3, 4]);
  });
  test('tells links out, missing files and missing anchors from good ones', () => {
    expect(linkProblem(root, file, 'https://example.org/')).toMatch(/leaves the repository/);
    expect(linkProblem(root, file, '../shared/design.md')).toMatch(/outside the repository/);
    expect(linkProblem(root, file, 'docs/no-such-page.md')).toMatch(/does not exist/);
    expect(linkProblem(root, file, 'docs/http.md#no-such-heading')).toMatch(/anchor/);
    expect(linkProblem(root, file, 'http://127.0.0.1:8233')).toBeUndefined();
    expect(linkProblem(root, file, 'docs/http.md')).toBeUndefined();
  });
});

describe('docs/configuration.md and the code', () => {
  const configuration = fs.readFileSync(path.join(docsDir, 'configuration.md'), 'utf8');
  const { variables, notVariables } = documentedVariables(configuration);
  const inCode = strandNamesInCode(root);

  test('lists variables at all', () => {
    expect(variables.size).toBeGreaterThan(40);
  });

  test('every variable it lists is used by the code', () => {
    const unused = [...variables].filter(([name]) => !codeMentions(root, name)).map(([name, line]) => `${name} (line ${line})`);
    expect(unused).toEqual([]);
  });

  test('every STRAND_* name the code uses is listed, as a variable or as a name that is not one', () => {
    const missing = [...inCode].filter(([name]) => !variables.has(name) && !notVariables.has(name)).map(([name, files]) => `${name} (${files.join(', ')})`);
    expect(missing).toEqual([]);
  });

  test('the names it says are not variables are never read from an environment', () => {
    expect(notVariables.size).toBeGreaterThan(0);
    for (const name of notVariables) {
      expect({ name, used: inCode.has(name), readFromEnv: codeReadsFromEnv(root, name) }).toEqual({ name, used: true, readFromEnv: false });
    }
  });
});

describe('the chaos tables', () => {
  // The tables live in bench/README.md beside the harness that produced them; the README keeps one
  // sentence and a link, so a newcomer reads it in minutes.
  const bench = fs.readFileSync(path.join(root, 'bench/README.md'), 'utf8');
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  test('bench/README.md holds them between their markers, once', () => {
    const start = bench.indexOf('<!-- chaos-table:start -->');
    const end = bench.indexOf('<!-- chaos-table:end -->');
    expect(start).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    expect(bench.indexOf('<!-- chaos-table:start -->', start + 1)).toBe(-1);
    const table = bench.slice(start, end).split('\n').filter((l) => l.startsWith('|'));
    expect(table.length).toBeGreaterThan(2);
  });
  test('the README has no table of them, only a link to bench/README.md', () => {
    expect(readme).not.toContain('chaos-table');
    expect(readme).toContain('](bench/README.md#chaos)');
  });
  test('the README stays short: at most 100 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(100);
  });
});
