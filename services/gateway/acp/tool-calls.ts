import path from 'node:path';
import type { ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from '@agentclientprotocol/sdk';

/**
 * How strand's tool calls look to an ACP client: a kind (the client's icon), a title naming what the
 * call works on, the files it touches (absolute paths, for follow-along), and its result as ACP tool
 * content: a diff for an edit or a write, the output as text for everything else.
 */

/** Longest text a tool row carries; the model reads the whole result, the row shows its start. */
const TOOL_TEXT_MAX_CHARS = 32_768;

const KINDS: Readonly<Record<string, ToolKind>> = {
  read_file: 'read',
  write_file: 'edit',
  edit_file: 'edit',
  delete_file: 'delete',
  list_files: 'search',
  search_files: 'search',
  shell_exec: 'execute',
  git_status: 'read',
  git_diff: 'read',
};

type Params = Record<string, unknown>;

const paramsOf = (params: unknown): Params => (params && typeof params === 'object' && !Array.isArray(params) ? (params as Params) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);
const oneLine = (s: string, max = 100) => {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function toolKind(tool: string): ToolKind {
  return KINDS[tool] ?? 'other';
}

/** What a tool row's header says: the action and what it works on. */
function toolTitle(tool: string, params: unknown): string {
  const p = paramsOf(params);
  const file = str(p.path);
  switch (tool) {
    case 'read_file':
      return file ? `Read ${file}` : 'Read a file';
    case 'write_file':
      return file ? `Write ${file}` : 'Write a file';
    case 'edit_file':
      return file ? `Edit ${file}` : 'Edit a file';
    case 'delete_file':
      return file ? `Delete ${file}` : 'Delete a file';
    case 'list_files':
      return `List files${file ? ` in ${file}` : ''}${str(p.pattern) ? ` matching ${p.pattern as string}` : ''}`;
    case 'search_files':
      return `Search for ${str(p.pattern) ? oneLine(p.pattern as string) : 'text'}${file ? ` in ${file}` : ''}`;
    case 'shell_exec':
      return str(p.command) ? `Run ${oneLine(p.command as string)}` : 'Run a command';
    case 'git_status':
      return 'git status';
    case 'git_diff':
      return `git diff${file ? ` ${file}` : ''}`;
    default:
      return tool;
  }
}

/** The files a call touches, as absolute paths in the session's project. */
function toolLocations(tool: string, params: unknown, project: string): ToolCallLocation[] {
  const p = paramsOf(params);
  const file = str(p.path);
  if (!file) return [];
  const location: ToolCallLocation = { path: path.resolve(project, file) };
  if (tool === 'read_file' && typeof p.offset === 'number' && Number.isInteger(p.offset) && p.offset > 0) location.line = p.offset;
  return [location];
}

/** The `tool_call` announcing a call: pending until it runs (or waits for a person's answer). */
export function toolCallStart(callId: string, tool: string, params: unknown, project: string): ToolCall {
  return { toolCallId: callId, title: toolTitle(tool, params), kind: toolKind(tool), status: 'pending', locations: toolLocations(tool, params, project), rawInput: params ?? {} };
}

export function textContent(text: string): ToolCallContent {
  const clipped = text.length > TOOL_TEXT_MAX_CHARS ? `${text.slice(0, TOOL_TEXT_MAX_CHARS)}\n… (${text.length - TOOL_TEXT_MAX_CHARS} more characters)` : text;
  return { type: 'content', content: { type: 'text', text: clipped } };
}

/**
 * A finished call: `completed` or `failed` (an error, a rejection, a call skipped by steering), and
 * what it produced. A successful edit or write shows as a diff of the text it replaced (a write's
 * earlier content is not known: it shows as new), everything else as its result text.
 */
export function toolResultContent(tool: string, params: unknown, project: string, ok: boolean, result: string): { status: ToolCallStatus; content: ToolCallContent[] } {
  if (!ok) return { status: 'failed', content: result ? [textContent(result)] : [] };
  const p = paramsOf(params);
  const file = str(p.path);
  if (file && tool === 'edit_file' && typeof p.old === 'string' && typeof p.new === 'string') {
    return { status: 'completed', content: [{ type: 'diff', path: path.resolve(project, file), oldText: p.old, newText: p.new }] };
  }
  if (file && tool === 'write_file' && typeof p.content === 'string') {
    return { status: 'completed', content: [{ type: 'diff', path: path.resolve(project, file), oldText: null, newText: p.content }] };
  }
  return { status: 'completed', content: result ? [textContent(result)] : [] };
}
