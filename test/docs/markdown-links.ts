import fs from 'node:fs';
import path from 'node:path';

/**
 * What a markdown document points at: its links, the repository paths it names in code spans, and its
 * headings' anchors. Read with a small scanner rather than a markdown library because only these
 * three things matter and the repository's documents use plain CommonMark for them.
 */

export interface DocLink {
  /** 1-based line of the link. */
  line: number;
  target: string;
}

/** The document's lines with fenced code blocks blanked (links and spans inside them are not links). */
function proseLines(text: string): string[] {
  let fence: string | undefined;
  return text.split('\n').map((line) => {
    const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
      return '';
    }
    if (opener) {
      fence = opener;
      return '';
    }
    return line;
  });
}

const CODE_SPAN = /(`+)([\s\S]*?[^`])\1(?!`)/g;

/** Every link of the document: inline `[..](target)`, images, reference definitions, autolinks and bare URLs. */
export function linksOf(text: string): DocLink[] {
  const links: DocLink[] = [];
  proseLines(text).forEach((raw, i) => {
    const line = raw.replace(CODE_SPAN, (m) => ' '.repeat(m.length));
    const push = (target: string) => links.push({ line: i + 1, target: target.trim() });
    for (const m of line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) push(m[1]!);
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (definition) push(definition[1]!);
    for (const m of line.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)) push(m[1]!);
    // A bare URL outside any link syntax (a link's own target was already taken above).
    const outsideLinks = (definition ? line.slice(definition[0].length) : line).replace(/\]\([^)]*\)/g, ' ').replace(/<[^>\s]+>/g, ' ');
    for (const m of outsideLinks.matchAll(/\b(?:https?|ftp):\/\/[^\s)>\]`'"]+/gi)) push(m[0]);
  });
  return links;
}

/** Code spans of the prose (not of fenced blocks), with their lines. */
export function codeSpansOf(text: string): DocLink[] {
  const spans: DocLink[] = [];
  proseLines(text).forEach((line, i) => {
    for (const m of line.matchAll(CODE_SPAN)) spans.push({ line: i + 1, target: m[2]!.trim() });
  });
  return spans;
}

/** GitHub's anchor for a heading: lower-cased, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of proseLines(text)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const plain = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/`/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

const LOOPBACK = /^[a-z][a-z0-9+.-]*:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/|$)/i;

/**
 * Why a link of `file` does not stay inside the repository at `root`, or undefined when it does: an
 * address of another machine, a path out of the repository or to nothing, an anchor no heading has.
 * Loopback addresses (the local stack's UI, a curl example) are this machine, not a link out.
 */
export function linkProblem(root: string, file: string, target: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
    return LOOPBACK.test(target) ? undefined : `leaves the repository (${target})`;
  }
  if (target.startsWith('//')) return `leaves the repository (${target})`;
  const [rawPath = '', fragment] = target.split('#', 2);
  const pathPart = decodeURIComponent(rawPath);
  const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), pathPart);
  const fromRoot = path.relative(root, resolved);
  if (fromRoot.startsWith('..') || path.isAbsolute(fromRoot)) return `points outside the repository (${target})`;
  if (!fs.existsSync(resolved)) return `names a file that does not exist (${target})`;
  if (fragment && resolved.endsWith('.md') && !anchorsOf(fs.readFileSync(resolved, 'utf8')).has(fragment)) {
    return `names an anchor ${path.relative(root, resolved)} has no heading for (${target})`;
  }
  return undefined;
}

/** The repository's top-level folders whose paths a document may name in a code span. */
const REPO_DIRS = ['contracts', 'workflows', 'activities', 'services', 'clients', 'infra', 'test', 'bench', 'docs', 'bin'];

/** A code span that names a repository path (e.g. `contracts/step-text.ts`), or undefined. */
export function repoPathIn(span: string): string | undefined {
  const m = /^([a-z-]+)\/[\w.@/-]*$/.exec(span);
  if (!m || !REPO_DIRS.includes(m[1]!) || /[*<>]/.test(span)) return undefined;
  return span.replace(/\/$/, '');
}

/**
 * A mention of a document that lives outside the repository (the planning notes the project started
 * from), which a clone does not have: the content it points at is in docs/ now.
 */
const OUTSIDE_DOCUMENT = /\bspecs\/[\w.-]+\.md\b|\bdesign\.md\b|\.\.\/shared\b|\bshared\/(?:specs|notes|seeds)\/|\bseeds\/[\w.-]/;

/** The 1-based lines of `text` that name a document outside the repository. */
export function outsideReferences(text: string): number[] {
  const lines: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (OUTSIDE_DOCUMENT.test(line)) lines.push(i + 1);
  });
  return lines;
}
