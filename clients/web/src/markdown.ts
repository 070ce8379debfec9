import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import lisp from 'highlight.js/lib/languages/lisp';
import clojure from 'highlight.js/lib/languages/clojure';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import { Marked, type Tokens } from 'marked';

/**
 * An answer's markdown as HTML, code blocks highlighted. The model's text is not trusted: raw HTML
 * in it is shown as text, links keep only http(s), mailto and in-page targets, and images are shown
 * as links (an image would be a request to wherever the model pointed; the page's CSP would block it
 * anyway). Only the languages below are bundled (highlight.js core + 18 grammars instead of its 190).
 */
const LANGUAGES = { bash, c, cpp, css, diff, go, java, javascript, json, lisp, clojure, markdown, python, rust, sql, typescript, xml, yaml };
for (const [name, grammar] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, grammar);
hljs.registerAliases(['sh', 'shell', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['js', 'jsx', 'mjs', 'cjs'], { languageName: 'javascript' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['el', 'elisp', 'emacs-lisp', 'scheme'], { languageName: 'lisp' });
hljs.registerAliases(['clj', 'edn', 'cljs'], { languageName: 'clojure' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });
hljs.registerAliases(['rs'], { languageName: 'rust' });

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** A link target the page may follow: web and mail addresses, and anchors. */
function safeHref(href: string): string | undefined {
  const trimmed = href.trim();
  if (trimmed.startsWith('#')) return trimmed;
  try {
    const url = new URL(trimmed);
    return ['http:', 'https:', 'mailto:'].includes(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** Code highlighted by its fence's language, or plain (escaped) when it names none we know. */
function highlight(code: string, lang: string | undefined): string {
  const language = lang?.trim().split(/\s+/)[0]?.toLowerCase();
  if (language && hljs.getLanguage(language)) return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  return escapeHtml(code);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      const language = lang?.trim().split(/\s+/)[0] ?? '';
      return `<pre class="code"><code class="hljs${language ? ` language-${escapeHtml(language)}` : ''}">${highlight(text, language)}</code></pre>\n`;
    },
    html({ text }: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(text);
    },
    link({ href, title, tokens }: Tokens.Link): string {
      const inner = this.parser.parseInline(tokens);
      const target = safeHref(href);
      if (!target) return inner;
      return `<a href="${escapeHtml(target)}"${title ? ` title="${escapeHtml(title)}"` : ''} rel="noopener noreferrer nofollow" target="_blank">${inner}</a>`;
    },
    image({ href, text }: Tokens.Image): string {
      const target = safeHref(href);
      const label = escapeHtml(text || href);
      return target ? `<a href="${escapeHtml(target)}" rel="noopener noreferrer nofollow" target="_blank">[image: ${label}]</a>` : `[image: ${label}]`;
    },
  },
});

/** Markdown to HTML that is safe to put in the page. */
export function renderMarkdown(text: string): string {
  return marked.parse(text, { async: false });
}
