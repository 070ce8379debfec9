import fs from 'node:fs';
import type { z } from 'zod';
import { builtinModelCatalog, mergeCatalogs, modelCatalogFileSchema, type ModelCatalog } from '../../contracts/model-catalog';

/**
 * The model catalog a process uses: the built-in one, with the entries of the user's file named by
 * STRAND_MODELS_FILE added or replacing built-in ones (same provider and id). A bad file stops the
 * process with an error naming the file and what is wrong, rather than silently pricing at 0.
 */
export function loadModelCatalog(env: NodeJS.ProcessEnv = process.env): ModelCatalog {
  const file = env.STRAND_MODELS_FILE?.trim();
  if (!file) return builtinModelCatalog;
  return mergeCatalogs(builtinModelCatalog, readCatalogFile(file));
}

/** Reads and validates one catalog file (`{"models": [...]}`, the shape of contracts/model-catalog.json). */
function readCatalogFile(file: string): ModelCatalog {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`STRAND_MODELS_FILE=${file}: cannot read it (${(err as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`STRAND_MODELS_FILE=${file}: not valid JSON (${(err as Error).message})`);
  }
  const parsed = modelCatalogFileSchema.safeParse(data);
  if (!parsed.success) throw new Error(`STRAND_MODELS_FILE=${file}: not a model catalog: ${describeIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** `models.2.price.input: Invalid input: expected number, received string` (first three issues). */
function describeIssues(issues: z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 3).map((i) => `${i.path.length ? i.path.join('.') : '(top level)'}: ${i.message}`);
  return shown.join('; ') + (issues.length > 3 ? ` (and ${issues.length - 3} more)` : '');
}
