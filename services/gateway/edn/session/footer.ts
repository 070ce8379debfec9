import os from 'node:os';
import type { EdnMap } from '../edn-value';
import { modelParts } from '../../../../contracts/models';

/**
 * The `footer/updated` payload (psi's default footer): line 1 the project path (~-abbreviated) and the
 * session name; the stats as short parts (`↑12k ↓3.4k $0.041 31%/200k`) and the model text
 * `(provider) model • thinking level`, which the Emacs client joins into its stats line itself.
 */
export interface FooterInput {
  sessionId: string;
  projectPath: string;
  sessionName?: string;
  model: string;
  thinkingLevel: string;
  usage: { input: number; output: number; cache_read: number; cache_write: number; cost_usd: number };
  context: { share: number; window: number };
  /** A status line under the stats (e.g. waiting for approval); omitted when empty. */
  status?: string;
}

/** psi's token counts: 950, 3.4k, 12k, 1.2M, 12M. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  if (n < 10_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  return `${Math.round(n / 1_000_000)}M`;
}

/** `/home/ada/src/app` → `~/src/app` when it lies under the home directory. */
export function abbreviateHome(path: string, home: string = os.homedir()): string {
  if (home && (path === home || path.startsWith(`${home}/`))) return `~${path.slice(home.length)}`;
  return path;
}

export function usageParts(input: FooterInput): string[] {
  const { usage, context } = input;
  const parts: string[] = [];
  if (usage.input > 0) parts.push(`↑${formatTokens(usage.input)}`);
  if (usage.output > 0) parts.push(`↓${formatTokens(usage.output)}`);
  if (usage.cache_read > 0) parts.push(`CR${formatTokens(usage.cache_read)}`);
  if (usage.cache_write > 0) parts.push(`CW${formatTokens(usage.cache_write)}`);
  if (usage.cost_usd > 0) parts.push(`$${usage.cost_usd.toFixed(3)}`);
  parts.push(context.window > 0 ? `${Math.round(context.share * 100)}%/${formatTokens(context.window)}` : '?');
  return parts;
}

/** `(anthropic) claude-sonnet-4-5 • thinking high`; a model id without a provider shows as it is. */
export function modelText(model: string, thinkingLevel: string): string {
  const parts = modelParts(model);
  const provider = parts.provider || 'no-provider';
  const id = parts.model || 'no-model';
  return `(${provider}) ${id} • thinking ${thinkingLevel || 'off'}`;
}

export function footerPayload(input: FooterInput, home?: string): EdnMap {
  const name = input.sessionName?.trim();
  const pathLine = `${abbreviateHome(input.projectPath, home)}${name ? ` • ${name}` : ''}`;
  const parts = usageParts(input);
  const model = modelText(input.model, input.thinkingLevel);
  return {
    'session-id': input.sessionId,
    'path-line': pathLine,
    'usage-parts': parts,
    'model-text': model,
    'stats-line': `${parts.join(' ')}  ${model}`,
    ...(input.status ? { 'status-line': input.status } : {}),
  };
}
