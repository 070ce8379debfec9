import { z } from 'zod';
import { TASK_TOOL, taskParamsSchema } from './subagents';
import { isReadOnlyTool, type ToolName } from './tool-names';

/**
 * The coding agent's built-in tools (docs/architecture.md, "Tools and providers"): their names, parameter schemas and the
 * descriptions the model reads. Names and parameters are binding. The schemas validate what a model
 * sends (the tools module parses with them) and are turned into the JSON Schema sent to providers
 * (`toolInputSchema`). Pure: no node imports, so the workflow and the gateway may read it too.
 */

/** Upper bound a model may ask for; the runtime clamps further to its own maximum (600 s by default). */
const SHELL_TIMEOUT_HARD_MAX_S = 3600;
/** Lines read_file returns when no limit is given. */
export const READ_FILE_DEFAULT_LIMIT = 2000;
/** Entries list_files returns at most. */
export const LIST_FILES_MAX_ENTRIES = 1000;
/** Matches search_files returns at most. */
export const SEARCH_FILES_MAX_MATCHES = 200;

const pathParam = z
  .string()
  .min(1)
  .describe('File path relative to the workspace root (an absolute path inside the workspace also works).');

const readFileParamsSchema = z.strictObject({
  path: pathParam,
  offset: z
    .number()
    .int()
    .min(1)
    .max(1_000_000_000)
    .optional()
    .describe('1-based line number to start reading from (default 1). Use it to page through a long file.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(100_000)
    .optional()
    .describe(`Maximum number of lines to return (default ${READ_FILE_DEFAULT_LIMIT}).`),
});

const writeFileParamsSchema = z.strictObject({
  path: pathParam,
  content: z.string().describe('The complete new content of the file. Missing parent directories are created.'),
});

const editFileParamsSchema = z.strictObject({
  path: pathParam,
  old: z
    .string()
    .min(1)
    .describe(
      'The exact text to replace, copied from the file including whitespace and indentation. It must occur exactly once: include enough surrounding lines to make it unique.',
    ),
  new: z.string().describe('The text that replaces `old` (an empty string deletes it).'),
});

const deleteFileParamsSchema = z.strictObject({
  path: pathParam.describe('Path of the file to delete, relative to the workspace root. Directories are not deleted.'),
});

const listFilesParamsSchema = z.strictObject({
  path: z
    .string()
    .optional()
    .describe('Directory to list, relative to the workspace root (default: the workspace root).'),
  pattern: z
    .string()
    .optional()
    .describe(
      'Glob matched against paths relative to `path`, e.g. `**/*.ts` or `src/{a,b}/*.json`. `*` stays within one directory, `**` crosses directories; a pattern without `/` matches file names at any depth.',
    ),
});

const searchFilesParamsSchema = z.strictObject({
  pattern: z
    .string()
    .min(1)
    .describe('Regular expression (JavaScript syntax) searched line by line, e.g. `function\\s+load`. Start with `(?i)` for case-insensitive.'),
  path: z
    .string()
    .optional()
    .describe('Directory or file to search, relative to the workspace root (default: the whole workspace).'),
});

const shellExecParamsSchema = z.strictObject({
  command: z.string().min(1).describe('The command line, run with `bash -c` in the workspace root. Stdin is empty: do not run interactive commands.'),
  timeout_s: z
    .number()
    .positive()
    .max(SHELL_TIMEOUT_HARD_MAX_S)
    .optional()
    .describe('Seconds before the command and everything it started are killed (default 120; capped by the runtime, 600 by default).'),
});

const gitStatusParamsSchema = z.strictObject({});

const gitDiffParamsSchema = z.strictObject({
  path: z.string().optional().describe('Limit the diff to this file or directory, relative to the workspace root.'),
});

export type ReadFileParams = z.infer<typeof readFileParamsSchema>;
export type WriteFileParams = z.infer<typeof writeFileParamsSchema>;
export type EditFileParams = z.infer<typeof editFileParamsSchema>;
export type DeleteFileParams = z.infer<typeof deleteFileParamsSchema>;
export type ListFilesParams = z.infer<typeof listFilesParamsSchema>;
export type SearchFilesParams = z.infer<typeof searchFilesParamsSchema>;
export type ShellExecParams = z.infer<typeof shellExecParamsSchema>;
export type GitStatusParams = z.infer<typeof gitStatusParamsSchema>;
export type GitDiffParams = z.infer<typeof gitDiffParamsSchema>;

/** One file a tool changed; the tool activity emits `file.changed` for each. Paths are workspace-relative. */
interface ToolFileChange {
  path: string;
  operation: 'write' | 'edit' | 'delete';
}

/** What a tool call returns to the model. A failed tool is a result with `is_error: true`, not an exception. */
export interface ToolResult {
  content: string;
  is_error: boolean;
  details?: Record<string, unknown>;
  file_changes?: ToolFileChange[];
}

export interface ToolDefinition {
  name: ToolName;
  description: string;
  schema: z.ZodObject;
  /** Read-only tools may be auto-approved (approval-policy.ts); the others change the workspace (tool-names.ts decides). */
  readOnly: boolean;
}

export { TOOL_NAMES, type ToolName } from './tool-names';

// The first line of each description is what the system prompt lists; the rest tells the model how to
// use the tool well. Keep them factual: they promise behaviour the tools module implements.
const DEFINITIONS: ReadonlyArray<Omit<ToolDefinition, 'readOnly'>> = [
  {
    name: 'read_file',
    schema: readFileParamsSchema,
    description: [
      'Read a text file from the workspace, with line numbers.',
      `Returns up to ${READ_FILE_DEFAULT_LIMIT} lines by default, each prefixed with its 1-based line number and a tab (the prefix is not part of the file).`,
      'Long files are cut with a note saying how to read on (offset/limit); very long lines are shortened. Binary files are refused.',
    ].join('\n'),
  },
  {
    name: 'write_file',
    schema: writeFileParamsSchema,
    description: [
      'Create a file or replace its whole content.',
      'Parent directories are created as needed. Prefer edit_file for changing part of an existing file.',
    ].join('\n'),
  },
  {
    name: 'edit_file',
    schema: editFileParamsSchema,
    description: [
      'Replace one exact piece of text in a file.',
      '`old` must match the file exactly (whitespace and indentation included) and occur exactly once; otherwise nothing changes and the result says how many matches there were.',
      'Read the file first and copy the text; add surrounding lines when the text is not unique. Make several calls for several changes.',
    ].join('\n'),
  },
  {
    name: 'delete_file',
    schema: deleteFileParamsSchema,
    description: 'Delete one file from the workspace (not directories).',
  },
  {
    name: 'list_files',
    schema: listFilesParamsSchema,
    description: [
      'List files in the workspace, optionally filtered by a glob pattern.',
      `Returns workspace-relative file paths, sorted, at most ${LIST_FILES_MAX_ENTRIES}. Files ignored by .gitignore and the .git directory are left out; empty directories are not shown.`,
    ].join('\n'),
  },
  {
    name: 'search_files',
    schema: searchFilesParamsSchema,
    description: [
      'Search file contents with a regular expression.',
      `Returns matching lines as \`path:line: text\`, at most ${SEARCH_FILES_MAX_MATCHES}. Skips binary files, very large files and files ignored by .gitignore.`,
    ].join('\n'),
  },
  {
    name: 'shell_exec',
    schema: shellExecParamsSchema,
    description: [
      'Run a shell command in the workspace root and return its output and exit code.',
      'stdout and stderr are combined. A non-zero exit code makes the result an error. Long output keeps its beginning and end; the full output is saved to a file whose path the result gives (read it with read_file).',
      'The command and all processes it starts are killed when the timeout passes. Do not start interactive programs; prefer the file tools for reading and editing files.',
    ].join('\n'),
  },
  {
    name: 'git_status',
    schema: gitStatusParamsSchema,
    description: 'Show the git status of the workspace: branch, staged, changed and untracked files.',
  },
  {
    name: 'git_diff',
    schema: gitDiffParamsSchema,
    description: [
      'Show uncommitted changes (staged and unstaged) against the last commit as a unified diff.',
      'Untracked files are not included: git_status lists them.',
    ].join('\n'),
  },
  {
    // Runs as a child workflow of the turn, not in the tools module (docs/subagents.md).
    name: TASK_TOOL,
    schema: taskParamsSchema,
    description: [
      'Delegate a self-contained research task to a sub-agent that can only read the workspace.',
      'The sub-agent gets read_file, list_files, search_files, git_status and git_diff, a limited number of steps, and none of this conversation: put everything it needs in `prompt`. Its final answer is the result.',
      'Several task calls in one message run in parallel. Use it for broad searches or questions that would take many reads; do small lookups yourself.',
    ].join('\n'),
  },
];

export const TOOL_DEFINITIONS: readonly ToolDefinition[] = DEFINITIONS.map((d) => ({ ...d, readOnly: isReadOnlyTool(d.name) }));

export function toolDefinition(name: string): ToolDefinition | undefined {
  return TOOL_DEFINITIONS.find((d) => d.name === name);
}

/**
 * The JSON Schema of a tool's parameters as providers want it: a plain `{type: 'object', properties,
 * required}` object. zod adds `$schema`, which some providers reject, and omits `required` when no
 * parameter is required, which some providers insist on; both are fixed here.
 */
export function toolInputSchema(schema: z.ZodObject): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  delete json.$schema;
  return { ...json, type: 'object', properties: json.properties ?? {}, required: json.required ?? [] };
}

/** The tools as sent to a model: name, description and JSON Schema of the parameters. */
export function toolsForModel(defs: readonly ToolDefinition[] = TOOL_DEFINITIONS): Array<{ name: string; description: string; input_schema: Record<string, unknown> }> {
  return defs.map((d) => ({ name: d.name, description: d.description, input_schema: toolInputSchema(d.schema) }));
}
