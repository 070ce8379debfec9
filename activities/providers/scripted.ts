import { createHash } from 'node:crypto';
import { continuesPrefill } from '../../contracts/model-catalog';
import { textOf } from './content';
import { PACKAGED_SCRIPTS_DIR, listScriptFiles, loadScriptFile, renderTemplate, scriptSchema, type Script, type ScriptAction } from './script-format';
import { ScriptPrefill } from './script-prefill';
import { dirCallCounter, memoryCallCounter, type CallCounter } from './script-state';
import { parseToolArguments } from './tool-args';
import { ProviderError, type ModelProvider, type ProviderChunk, type ProviderErrorKind, type ProviderMessage, type ProviderUsage } from './types';

/**
 * The deterministic `scripted` provider: replays a script instead of calling a model, for tests,
 * demos and benchmarks. `scripted/<name>` plays `<name>.json` from STRAND_SCRIPTS_DIR, else from the
 * shipped scripts/ folder, else a built-in script (`echo`). Which step answers a call depends only on
 * the context (assistant messages since the last user message), so a retried step replays the same
 * step. A prefilled call (a retried step continuing its answer) plays the same step and streams only
 * what follows the prefill, without thinking (as Anthropic's API). Format and examples: scripts/README.md.
 */

/** Splits text into word-sized deltas (each keeps its trailing space) so streams look like a model's. */
export function splitIntoDeltas(text: string): string[] {
  const parts = text.match(/\S+\s*|\s+/g);
  return parts ?? [];
}

const builtins: Record<string, Script> = {
  /** Answers `You said: <the last user message>`. */
  echo: scriptSchema.parse({ steps: [[{ type: 'text', text: 'You said: {{user}}' }]], repeat_last_step: true }),
};

/** Names of the built-in and shipped scripts, for error messages and listings. */
export const scriptNames = [...new Set([...Object.keys(builtins), ...listScriptFiles([PACKAGED_SCRIPTS_DIR])])];

export interface ScriptedProviderOptions {
  /** Pause before each delta, so a stream takes visible time (reconnect tests, demos). */
  deltaDelayMs?: number;
  /** Folder searched before the shipped scripts (default: STRAND_SCRIPTS_DIR). */
  scriptsDir?: string;
  /** Folder for call counts shared across processes (default: STRAND_SCRIPTS_STATE_DIR; else memory). */
  stateDir?: string;
  /** Where the defaults above are read (default: process.env). */
  env?: Record<string, string | undefined>;
}

const DEFAULT_STATUS: Record<ProviderErrorKind, number> = { rate_limited: 429, overloaded: 529, transient: 503, auth: 401, context_overflow: 400, permanent: 400 };

/** Builds the scripted provider. */
export function createScriptedProvider(options: ScriptedProviderOptions = {}): ModelProvider {
  const env = options.env ?? process.env;
  const delay = options.deltaDelayMs ?? 0;
  const userDir = options.scriptsDir ?? (env.STRAND_SCRIPTS_DIR?.trim() || undefined);
  const dirs = [...(userDir ? [userDir] : []), PACKAGED_SCRIPTS_DIR];
  const defaultStateDir = options.stateDir ?? (env.STRAND_SCRIPTS_STATE_DIR?.trim() || undefined);
  const memory = memoryCallCounter();
  const counterFor = (script: Script): CallCounter => {
    const dir = script.state_dir ?? defaultStateDir;
    return dir ? dirCallCounter(dir) : memory;
  };

  return {
    id: 'scripted',
    canContinue: (entry) => continuesPrefill(entry, true),
    async *stream(request): AsyncIterable<ProviderChunk> {
      const { signal } = request;
      const script = findScript(request.model, dirs);
      const { index, actions } = pickStep(request.model, script, request.messages);
      const user = lastUserText(request.messages);
      const key = createHash('sha256').update(`${request.model}\u0000${index}\u0000${user}`).digest('hex').slice(0, 32);
      const conditional = actions.some((a) => a.type === 'error' && (a.times !== undefined || a.on_calls !== undefined));
      const call = conditional ? await counterFor(script).next(key) : 1;
      const result = lastResultText(request.messages);
      const vars = { user, tool_result: result, tool_result_first_line: result.split('\n')[0] ?? '' };
      const prefill = request.prefill ? new ScriptPrefill(request.prefill, `script ${request.model}, step ${index + 1}`) : undefined;

      let output = 0;
      let calls = 0;
      let usage: Partial<ProviderUsage> = {};
      let stop: Extract<ScriptAction, { type: 'stop' }> | undefined;
      const pause = () => (delay > 0 ? sleep(delay, signal) : signal.aborted ? Promise.reject(signal.reason) : Promise.resolve());
      for (const action of actions) {
        switch (action.type) {
          case 'text':
          case 'thinking': {
            if (action.type === 'thinking' && prefill) break; // a continued call does not think
            const pieces = typeof action.text === 'string' ? splitIntoDeltas(renderTemplate(action.text, vars)) : action.text;
            for (const piece of pieces) {
              const text = prefill ? prefill.text(piece) : piece;
              if (prefill && !text) continue;
              await pause();
              output += 1;
              yield { type: action.type === 'text' ? 'text_delta' : 'thinking_delta', text };
            }
            if (action.type === 'thinking' && action.signature) yield { type: 'thinking_signature', signature: action.signature };
            break;
          }
          case 'tool_call': {
            prefill?.beforeToolCall(action.name);
            calls += 1;
            const id = action.id ?? `call_${key.slice(0, 8)}_${calls}`;
            const raw = action.raw_args ?? JSON.stringify(action.args ?? {});
            yield { type: 'tool_call_start', id, name: action.name };
            for (const piece of thirds(raw)) {
              await pause();
              output += 1;
              yield { type: 'tool_call_delta', id, arguments_delta: piece };
            }
            yield { type: 'tool_call_end', id, ...parseToolArguments(raw) };
            break;
          }
          case 'usage':
            usage = { ...usage, ...withoutType(action) };
            break;
          case 'stop':
            stop = action;
            break;
          case 'delay':
            await sleep(action.ms, signal);
            break;
          case 'stall':
            await sleep(Number.POSITIVE_INFINITY, signal);
            break;
          case 'error':
            if (action.times !== undefined && call > action.times) break;
            if (action.on_calls !== undefined && !action.on_calls.includes(call)) break;
            throw new ProviderError(action.kind, action.message ?? `scripted: ${action.kind} (script ${request.model}, step ${index + 1}, call ${call})`, {
              provider: 'scripted',
              status: action.status ?? DEFAULT_STATUS[action.kind],
              ...(action.retry_after_ms !== undefined ? { retryAfterMs: action.retry_after_ms } : {}),
            });
        }
      }
      prefill?.end();
      if (signal.aborted) throw signal.reason;
      const input = request.messages.reduce((n, m) => n + splitIntoDeltas(textOf(m.content)).length, 0);
      yield {
        type: 'done',
        stop_reason: stop?.reason ?? (calls > 0 ? 'function_call' : 'end'),
        ...(stop?.native ? { native_stop_reason: stop.native } : {}),
        usage: { input, output, cache_read: 0, cache_write: 0, ...usage },
      };
    },
  };
}

function findScript(name: string, dirs: string[]): Script {
  let script: Script | undefined;
  try {
    script = loadScriptFile(name, dirs) ?? builtins[name];
  } catch (err) {
    throw new ProviderError('permanent', `scripted: ${(err as Error).message}`, { provider: 'scripted' });
  }
  if (script) return script;
  const known = [...new Set([...Object.keys(builtins), ...listScriptFiles(dirs)])].join(', ');
  throw new ProviderError('permanent', `scripted provider has no script "${name}" (known: ${known})`, { provider: 'scripted' });
}

/** Step k answers the k-th model call since the last user message (k = assistant messages since it). */
function pickStep(name: string, script: Script, messages: ProviderMessage[]): { index: number; actions: ScriptAction[] } {
  let since = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role !== 'user'; i--) if (messages[i]?.role === 'assistant') since += 1;
  const last = script.steps.length - 1;
  if (since > last && !script.repeat_last_step) {
    throw new ProviderError('permanent', `scripted: script "${name}" has ${script.steps.length} step(s); this is model call ${since + 1} since the last user message`, {
      provider: 'scripted',
    });
  }
  const index = Math.min(since, last);
  return { index, actions: script.steps[index] ?? [] };
}

function lastUserText(messages: ProviderMessage[]): string {
  const m = [...messages].reverse().find((x) => x.role === 'user');
  return m ? textOf(m.content) : '';
}

function lastResultText(messages: ProviderMessage[]): string {
  const m = [...messages].reverse().find((x) => x.role === 'function_result');
  return m ? textOf(m.content) : '';
}

function withoutType<T extends { type: string }>(action: T): Omit<T, 'type'> {
  const { type: _type, ...rest } = action;
  return rest;
}

/** Splits a tool call's argument text into up to three fragments, as models stream them. */
function thirds(raw: string): string[] {
  const size = Math.max(1, Math.ceil(raw.length / 3));
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += size) out.push(raw.slice(i, i + size));
  return out;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = Number.isFinite(ms)
      ? setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        }, ms)
      : undefined;
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
