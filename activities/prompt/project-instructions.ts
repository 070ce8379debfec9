import path from 'node:path';
import { INSTRUCTION_FILE_NAMES, readInstructionFile, wholeCharacters } from './instruction-file';
import { instructionScope } from './repository-root';

/** The default total of instruction text in a prompt: enough for a few real AGENTS.md, not a manual. */
export const DEFAULT_INSTRUCTIONS_MAX_BYTES = 32 * 1024;

export interface ProjectInstructions {
  /** The prompt section (empty without instruction files). */
  text: string;
  /** What the turn should say about it: files skipped, the cap cutting. */
  notices: string[];
}

interface Part {
  /** Relative to the repository root, with `/`: how the model and the notices name the file. */
  name: string;
  bytes: Buffer;
  size: number;
}

/**
 * The project's instruction files, from the repository root down to the workspace (instructionScope),
 * one per directory (AGENTS.md, else CLAUDE.md), merged nearest-last: the closest come last and so
 * weigh most. The text of all files together is capped at `maxBytes`; over it the outermost are cut
 * first (a file's beginning is kept) and then left out, and a notice names them. Read from disk on
 * every call: an edited file counts from the next model step.
 */
export async function readProjectInstructions(projectPath: string, maxBytes = DEFAULT_INSTRUCTIONS_MAX_BYTES, home?: string): Promise<ProjectInstructions> {
  if (!projectPath) return { text: '', notices: [] };
  const scope = await instructionScope(projectPath, home);
  if (!scope) return { text: '', notices: [] };
  const notices: string[] = [];
  const parts: Part[] = [];
  for (const dir of scope.directories) {
    for (const file of INSTRUCTION_FILE_NAMES) {
      const name = relativeName(scope.root, path.join(dir, file));
      const read = await readInstructionFile(path.join(dir, file), scope.root, maxBytes);
      if (read.kind === 'absent') continue;
      if (read.kind === 'skipped') {
        notices.push(`project instructions: ${name} skipped (${read.reason})`);
        continue; // the directory's CLAUDE.md stands in for an AGENTS.md that cannot be read
      }
      parts.push({ name, bytes: read.bytes, size: read.size });
      break;
    }
  }
  const { kept, cut } = capNearestFirst(parts, maxBytes);
  if (cut.length > 0) notices.push(`project instructions are capped at ${maxBytes} bytes: ${cut.join('; ')}`);
  return { text: render(kept, scope.root, scope.directories.at(-1) === scope.root, maxBytes), notices };
}

interface KeptPart extends Part {
  /** Bytes kept, when fewer than the file has. */
  cutTo?: number;
}

/** Spends the budget from the nearest file outwards: the outermost are the ones cut or left out. */
function capNearestFirst(parts: Part[], maxBytes: number): { kept: KeptPart[]; cut: string[] } {
  let left = maxBytes;
  const kept: KeptPart[] = [];
  const cut: string[] = [];
  for (const part of [...parts].reverse()) {
    if (part.size <= left) {
      kept.unshift(part);
      left -= part.size;
      continue;
    }
    const bytes = wholeCharacters(part.bytes.subarray(0, left));
    if (bytes.length > 0) {
      kept.unshift({ ...part, bytes, cutTo: bytes.length });
      cut.unshift(`${part.name} cut to ${bytes.length} of ${part.size} bytes`);
    } else {
      cut.unshift(`${part.name} (${part.size} bytes) left out`);
    }
    left = 0;
  }
  return { kept, cut };
}

function render(parts: KeptPart[], root: string, workspaceIsRoot: boolean, maxBytes: number): string {
  if (parts.length === 0) return '';
  const sections = parts.map((p) => {
    // A BOM would only confuse the model (the files are UTF-8, checked on reading); trailing blank lines say nothing.
    const text = p.bytes.toString('utf8').replace(/^\uFEFF/, '').trimEnd();
    const tail = p.cutTo === undefined ? '' : `\n[… ${p.name} cut here: ${p.cutTo} of ${p.size} bytes kept; project instructions are capped at ${maxBytes} bytes in all]`;
    return `Project instructions from ${p.name}:\n${text}${tail}`;
  });
  const where = workspaceIsRoot ? '' : ` Their paths are relative to the repository root ${root}.`;
  const intro = `The project's instruction files follow, from the repository root down to the workspace: where they disagree, the later (nearer) ones win.${where}`;
  return [intro, ...sections].join('\n\n');
}

/** STRAND_INSTRUCTIONS_MAX_BYTES: the cap on project instruction text per prompt (a positive integer). */
export function instructionsMaxBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.STRAND_INSTRUCTIONS_MAX_BYTES?.trim();
  if (!raw) return DEFAULT_INSTRUCTIONS_MAX_BYTES;
  const n = Number(raw);
  if (Number.isInteger(n) && n > 0) return n;
  throw new Error(`STRAND_INSTRUCTIONS_MAX_BYTES must be a positive number of bytes (got "${env.STRAND_INSTRUCTIONS_MAX_BYTES}")`);
}

function relativeName(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}
