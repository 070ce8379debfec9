import type AnthropicSdk from '@anthropic-ai/sdk';
import type OpenAISdk from 'openai';
import type { Endpoints } from './endpoints';

/**
 * The two LLM SDKs, loaded when first used instead of when the worker starts: requiring them took
 * about a fifth of a worker's imports (bench:startup), and a worker is ready, able to take a turn that
 * another worker's crash left, before any step of its own needs them. A synchronous require (not
 * `import()`) so that every caller, the error classifier's `instanceof` checks included, sees the one
 * CommonJS copy of each SDK, from source (tsx) as from the built bundle.
 */
let anthropic: typeof AnthropicSdk | undefined;
let openai: typeof OpenAISdk | undefined;

export function anthropicSdk(): typeof AnthropicSdk {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberately lazy (see above)
  anthropic ??= (require('@anthropic-ai/sdk') as { default: typeof AnthropicSdk }).default;
  return anthropic;
}

export function openAISdk(): typeof OpenAISdk {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deliberately lazy (see above)
  openai ??= (require('openai') as { default: typeof OpenAISdk }).default;
  return openai;
}

/**
 * Loads the SDKs of the configured endpoints now; the worker calls it once it is ready, so its first
 * step with a real model does not pay for the require either.
 */
export function loadConfiguredSdks(endpoints: Endpoints): void {
  if (endpoints.anthropic) anthropicSdk();
  if (endpoints.openai) openAISdk();
}
