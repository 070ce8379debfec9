import { textOf } from './content';
import { ProviderError, type ModelProvider, type ProviderChunk, type ProviderRequest } from './types';

/**
 * The deterministic `scripted` provider: replays a built-in script instead of calling a model, for
 * tests, demos and benchmarks. Scripts are chosen by the model part of the id (`scripted/echo`).
 */

/** How a script answers a request: the full text, split into the deltas to stream. */
type Script = (request: ProviderRequest) => string[];

/** Splits text into word-sized deltas (each keeps its trailing space) so streams look like a model's. */
export function splitIntoDeltas(text: string): string[] {
  const parts = text.match(/\S+\s*|\s+/g);
  return parts ?? [];
}

const scripts: Record<string, Script> = {
  /** Answers `You said: <the last user message>`. */
  echo: (request) => {
    const lastUser = [...request.messages].reverse().find((m) => m.role === 'user');
    return splitIntoDeltas(`You said: ${lastUser ? textOf(lastUser.content) : ''}`);
  },
};

/** Names of the built-in scripts, for error messages and the model catalog. */
export const scriptNames = Object.keys(scripts);

export interface ScriptedProviderOptions {
  /** Pause before each delta, so a stream takes visible time (reconnect tests, demos). */
  deltaDelayMs?: number;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Builds the scripted provider. */
export function createScriptedProvider(options: ScriptedProviderOptions = {}): ModelProvider {
  const delay = options.deltaDelayMs ?? 0;
  return {
    id: 'scripted',
    async *stream(request): AsyncIterable<ProviderChunk> {
      const script = scripts[request.model];
      if (!script) {
        throw new ProviderError('permanent', `scripted provider has no script "${request.model}" (known: ${scriptNames.join(', ')})`, {
          provider: 'scripted',
        });
      }
      const deltas = script(request);
      let output = 0;
      for (const text of deltas) {
        if (delay > 0) await sleep(delay, request.signal);
        else if (request.signal.aborted) throw request.signal.reason;
        output += 1;
        yield { type: 'text_delta', text };
      }
      const input = request.messages.reduce((n, m) => n + splitIntoDeltas(textOf(m.content)).length, 0);
      yield { type: 'done', stop_reason: 'end', usage: { input, output, cache_read: 0, cache_write: 0 } };
    },
  };
}
