/**
 * Glob patterns to regular expressions, for list_files' `pattern` and for .gitignore lines (node 20
 * has no stable glob matcher). Paths are `/`-separated and relative. `*` and `?` stay within one path
 * segment, `**` as a whole segment spans any number of segments, `[...]` is a character class
 * (`[!...]` negated) and, for list_files only, `{a,b}` is an alternation.
 */
export function globToRegExpSource(glob: string, opts: { braces: boolean }): string {
  let out = '';
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const atStart = i === 0 || glob[i - 1] === '/';
        const atEnd = i + 2 === glob.length || glob[i + 2] === '/';
        if (atStart && atEnd) {
          if (i + 2 === glob.length) {
            // Trailing `**`: everything below (also when it is the whole pattern).
            out += '.*';
            i += 1;
          } else {
            // `**/`: zero or more whole segments.
            out += '(?:[^/]*/)*';
            i += 2;
          }
          continue;
        }
      }
      out += '[^/]*';
      while (glob[i + 1] === '*') i++;
    } else if (c === '?') {
      out += '[^/]';
    } else if (c === '[') {
      const close = glob.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, close);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^' : ''}${body.replace(/\\/g, '\\\\').replace(/\]/g, '\\]')}]`;
      i = close;
    } else if (c === '\\' && i + 1 < glob.length) {
      out += escapeRegExp(glob[++i]!);
    } else if (opts.braces && c === '{') {
      braceDepth++;
      out += '(?:';
    } else if (opts.braces && c === '}' && braceDepth > 0) {
      braceDepth--;
      out += ')';
    } else if (opts.braces && c === ',' && braceDepth > 0) {
      out += '|';
    } else {
      out += escapeRegExp(c);
    }
  }
  // An unclosed `{` is taken literally rather than failing.
  return braceDepth > 0 ? escapeRegExp(glob) : out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/**
 * list_files' matcher for a path relative to the listed directory. A pattern without `/` matches the
 * file name at any depth (`*.ts` finds every TypeScript file), the way most people mean it.
 */
export function compileListGlob(pattern: string): (rel: string) => boolean {
  let p = pattern.trim().replace(/^\.\//, '');
  if (p.startsWith('/')) p = p.slice(1);
  const anywhere = !p.includes('/');
  const re = new RegExp(`^${anywhere ? '(?:.*/)?' : ''}${globToRegExpSource(p, { braces: true })}$`);
  return (rel) => re.test(rel);
}
