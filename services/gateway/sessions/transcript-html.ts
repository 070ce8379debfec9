import type { ContentBlock, Message } from '../../../contracts/session-store/messages';

/** What an HTML export is rendered from: the session's description and its active branch. */
export interface HtmlTranscriptSource {
  session_id: string;
  title: string;
  project_path: string;
  model: string;
  started_at: number;
  messages: Array<{ message: Message }>;
}

/** Tool arguments and results longer than this are cut (the store keeps everything). */
const MAX_SHOWN = 8_000;

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const cut = (s: string) => (s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}\n… (${s.length - MAX_SHOWN} more characters)` : s);
const textOf = (blocks: readonly ContentBlock[]) => blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
const para = (s: string) => `<div class="text">${escape(s)}</div>`;

function assistantBody(content: readonly ContentBlock[]): string {
  return content
    .map((b) => {
      if (b.type === 'text') return para(b.text);
      if (b.type === 'thinking' && b.text) return `<details class="thinking"><summary>Thinking</summary>${para(b.text)}</details>`;
      if (b.type === 'function_call') return `<div class="tool-call"><b>Tool call: ${escape(b.function_id)}</b><pre>${escape(cut(JSON.stringify(b.arguments ?? {}, null, 2)))}</pre></div>`;
      return '';
    })
    .join('\n');
}

function section(m: Message): string {
  switch (m.role) {
    case 'user':
      return `<section class="user"><h2>User</h2>${para(textOf(m.content))}</section>`;
    case 'assistant':
      return `<section class="assistant"><h2>Assistant${m.stop_reason === 'aborted' ? ' (aborted)' : ''}</h2>${assistantBody(m.content)}${m.error_message ? `<p class="error">${escape(m.error_message)}</p>` : ''}</section>`;
    case 'function_result':
      return `<section class="tool-result${m.is_error ? ' error' : ''}"><h3>Result of ${escape(m.function_id)}${m.is_error ? ' (error)' : ''}</h3><pre>${escape(cut(textOf(m.content)))}</pre></section>`;
    case 'custom':
      return `<section class="custom"><h2>${escape(m.custom_type)}</h2>${para(m.display ?? textOf(m.content))}</section>`;
  }
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.45}
section{border-left:3px solid #ccc;padding:.2rem 1rem;margin:1rem 0}section.user{border-color:#3a7}section.assistant{border-color:#37a}
section.error,.error{border-color:#c33;color:#a22}.text{white-space:pre-wrap}pre{background:#f5f5f5;padding:.5rem;overflow-x:auto}
h2,h3{font-size:1rem;margin:.3rem 0}dl{display:grid;grid-template-columns:max-content auto;gap:.2rem 1rem}`;

/** A self-contained HTML page of the conversation (no scripts, no external resources), every text escaped. */
export function renderHtml(src: HtmlTranscriptSource): string {
  const title = escape(src.title || src.session_id);
  const facts = [
    ['Session', src.session_id],
    ['Project', src.project_path],
    ['Model', src.model],
    ['Started', new Date(src.started_at).toISOString()],
  ]
    .map(([k, v]) => `<dt>${k}</dt><dd>${escape(v!)}</dd>`)
    .join('');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${STYLE}</style></head>
<body><h1>${title}</h1><dl>${facts}</dl>
${src.messages.map(({ message }) => section(message)).join('\n')}
</body></html>
`;
}
