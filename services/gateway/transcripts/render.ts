import type { ContentBlock, Message } from '../../../contracts/session-store/messages';

/** What a transcript is rendered from: the session's description and its active branch. */
export interface TranscriptSource {
  session_id: string;
  title: string;
  project_path: string;
  model: string;
  started_at: number;
  messages: Array<{ entry_id: string; message: Message }>;
}

export const TRANSCRIPT_FORMATS = ['json', 'markdown', 'org'] as const;
export type TranscriptFormat = (typeof TRANSCRIPT_FORMATS)[number];

/** Tool calls longer than this are cut in the readable formats (the json format keeps everything). */
const MAX_SHOWN = 4_000;
const cut = (s: string) => (s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}\n… (${s.length - MAX_SHOWN} more characters)` : s);
const textOf = (blocks: ContentBlock[]) => blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');

type ImageBlock = Extract<ContentBlock, { type: 'image' }>;
/** Decoded size of an image: recorded with a prompt image, else computed from the base64 (a tool's image). */
const imageBytes = (b: ImageBlock) => b.bytes ?? Math.max(0, Math.floor((b.data.length * 3) / 4) - (b.data.endsWith('==') ? 2 : b.data.endsWith('=') ? 1 : 0));
/** An image as the readable formats show it: an attachment line, never its bytes. */
const attachmentLine = (b: ImageBlock) => `[Attachment: image, ${b.mime}, ${imageBytes(b)} bytes]`;
const attachmentsOf = (blocks: ContentBlock[]) => blocks.flatMap((b) => (b.type === 'image' ? [attachmentLine(b)] : []));
/** Text, then one attachment line per image. */
const withAttachments = (blocks: ContentBlock[]) => [textOf(blocks), ...attachmentsOf(blocks)].filter(Boolean).join('\n');

/** The json format keeps every block but an image's bytes: its media type, size and reference instead. */
function withoutImageData(b: ContentBlock): ContentBlock {
  if (b.type === 'image') {
    const { data: _data, ...rest } = b;
    return { ...rest, data: '', bytes: imageBytes(b) };
  }
  if (b.type === 'function_result') return { ...b, content: b.content.map(withoutImageData) };
  return b;
}
const iso = (ms: number) => new Date(ms).toISOString();

const WRITES = new Set(['write_file', 'edit_file', 'delete_file']);

/** Files the conversation's tool calls wrote, edited or deleted. */
export function filesChanged(messages: TranscriptSource['messages']): string[] {
  const files = new Set<string>();
  for (const { message } of messages) {
    if (message.role !== 'assistant') continue;
    for (const b of message.content) {
      const p = b.type === 'function_call' ? (b.arguments as { path?: unknown } | undefined)?.path : undefined;
      if (b.type === 'function_call' && WRITES.has(b.function_id) && typeof p === 'string') files.add(p);
    }
  }
  return [...files].sort();
}

function renderJson(src: TranscriptSource): string {
  const messages = src.messages.map((e) => ({ ...e, message: { ...e.message, content: e.message.content.map(withoutImageData) } as Message }));
  return `${JSON.stringify({ ...src, messages, files_changed: filesChanged(src.messages) }, null, 2)}\n`;
}

/** Markdown: a heading per message, tool calls and results as fenced blocks, thinking folded in <details>. */
function renderMarkdown(src: TranscriptSource): string {
  const out = [`# ${src.title || src.session_id}`, '', `- Session: \`${src.session_id}\``, `- Project: \`${src.project_path}\``, `- Model: \`${src.model}\``, `- Started: ${iso(src.started_at)}`, ''];
  for (const { message: m } of src.messages) {
    if (m.role === 'user') out.push('## User', '', withAttachments(m.content), '');
    else if (m.role === 'assistant') {
      out.push(`## Assistant${m.stop_reason === 'aborted' ? ' (aborted)' : ''}`, '');
      for (const b of m.content) {
        if (b.type === 'text') out.push(b.text, '');
        if (b.type === 'thinking' && b.text) out.push('<details><summary>Thinking</summary>', '', b.text, '', '</details>', '');
        if (b.type === 'function_call') out.push(`**Tool call: \`${b.function_id}\`**`, '', '```json', cut(JSON.stringify(b.arguments ?? {}, null, 2)), '```', '');
      }
    } else if (m.role === 'function_result') {
      out.push(`**Result of \`${m.function_id}\`${m.is_error ? ' (error)' : ''}**`, '', '```', cut(textOf(m.content)), '```', '', ...attachmentsOf(m.content).flatMap((l) => [l, '']));
    } else out.push(`## ${m.custom_type}`, '', textOf(m.content), '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

/** Org mode: #+ headers, a heading per message, tool calls in src blocks, thinking in a folded drawer. */
function renderOrg(src: TranscriptSource): string {
  const out = [
    `#+TITLE: ${src.title || src.session_id}`,
    `#+DATE: ${iso(src.started_at)}`,
    `#+SESSION_ID: ${src.session_id}`,
    `#+MODEL: ${src.model}`,
    `#+PROJECT: ${src.project_path}`,
    '',
  ];
  const body = (s: string) => s.replace(/^\*/gm, ',*');
  for (const { message: m } of src.messages) {
    if (m.role === 'user') out.push('* User', body(withAttachments(m.content)), '');
    else if (m.role === 'assistant') {
      out.push(`* Assistant${m.stop_reason === 'aborted' ? ' (aborted)' : ''}`);
      for (const b of m.content) {
        if (b.type === 'text') out.push(body(b.text));
        if (b.type === 'thinking' && b.text) out.push(':THINKING:', body(b.text), ':END:');
        if (b.type === 'function_call') out.push(`** Tool call: ${b.function_id}`, '#+begin_src json', cut(JSON.stringify(b.arguments ?? {}, null, 2)), '#+end_src');
      }
      out.push('');
    } else if (m.role === 'function_result') {
      out.push(`** Result of ${m.function_id}${m.is_error ? ' (error)' : ''}`, '#+begin_example', body(cut(textOf(m.content))), '#+end_example', ...attachmentsOf(m.content), '');
    } else out.push(`* ${m.custom_type}`, body(textOf(m.content)), '');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

export function render(format: TranscriptFormat, src: TranscriptSource): { body: string; contentType: string; extension: string } {
  switch (format) {
    case 'json':
      return { body: renderJson(src), contentType: 'application/json; charset=utf-8', extension: 'json' };
    case 'markdown':
      return { body: renderMarkdown(src), contentType: 'text/markdown; charset=utf-8', extension: 'md' };
    case 'org':
      return { body: renderOrg(src), contentType: 'text/org; charset=utf-8', extension: 'org' };
  }
}
