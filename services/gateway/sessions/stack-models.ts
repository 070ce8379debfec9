import { z } from 'zod';
import type { ModelsReply } from '../../../contracts/http-replies';
import { modelIdOf, modelParts } from '../../../contracts/models';
import type { ProviderConfig } from '../../common/provider-config';
import type { ModelChoice } from './model-choice';
import { modelInfo, type ModelInfo } from './model-list';

/**
 * A provider whose base URL names a server of the user's own (a local Ollama or vLLM, a proxy): the
 * models it runs are whatever that server's `GET /v1/models` answers, not the catalog's hosted ones.
 */
export interface ModelServer {
  provider: string;
  /** The server's model list, e.g. http://127.0.0.1:11434/v1/models. */
  modelsUrl: string;
  headers: Record<string, string>;
}

/** The model servers of the configured providers with a base-URL override (OPENAI_BASE_URL, ANTHROPIC_BASE_URL). */
export function modelServersOf(config: Pick<ProviderConfig, 'anthropic' | 'openai'>): ModelServer[] {
  const servers: ModelServer[] = [];
  const slash = (url: string) => url.replace(/\/+$/, '');
  // The OpenAI SDK's base URL ends in /v1 already; the Anthropic SDK's does not.
  if (config.openai?.baseURL) servers.push({ provider: 'openai', modelsUrl: `${slash(config.openai.baseURL)}/models`, headers: config.openai.placeholderKey ? {} : { authorization: `Bearer ${config.openai.apiKey}` } });
  if (config.anthropic?.baseURL) servers.push({ provider: 'anthropic', modelsUrl: `${slash(config.anthropic.baseURL)}/v1/models`, headers: { 'x-api-key': config.anthropic.apiKey, 'anthropic-version': '2023-06-01' } });
  return servers;
}

/** What both OpenAI-compatible servers and Anthropic's API answer: `{data: [{id}, …]}`. */
const modelListSchema = z.object({ data: z.array(z.object({ id: z.string().min(1) }).passthrough()) }).passthrough();

/** How long a server's answer is reused: pickers open often, servers change their models rarely. */
const CACHE_MS = 30_000;
/** A model server that takes longer is treated as not answering (the picker must not hang). */
const ASK_TIMEOUT_MS = 3_000;

interface Asked {
  at: number;
  ids?: string[];
  why?: string;
}

/** Where a SessionService learns which models can run: StackModels in the gateway, the gateway itself for `strand acp`. */
export interface RunnableModels {
  /** The default model, the runnable models (sorted by provider and id), and why the list is short when it is. */
  runnable(): Promise<{ defaultModel: string; models: ModelInfo[]; notice?: string }>;
  /** The same as `GET /api/models` answers it. */
  list(): Promise<ModelsReply>;
}

/**
 * The one owner of "which models can this stack run" (`GET /api/models`, the chat's `/model`, ACP's
 * and EDN's pickers): the catalog's models of configured providers (ModelChoice), except that a
 * provider with a model server of its own lists what that server serves. A server that does not
 * answer leaves only the default model for its provider, and a notice that says why.
 */
export class StackModels implements RunnableModels {
  private readonly asked = new Map<string, Asked>();

  constructor(
    private readonly choice: ModelChoice,
    private readonly defaultModel: string,
    private readonly servers: readonly ModelServer[],
    private readonly options: { fetch?: typeof fetch; cacheMs?: number; timeoutMs?: number; now?: () => number } = {},
  ) {}

  /** The default model, the runnable models (sorted by provider and id), and why the list is short when it is. */
  async runnable(): Promise<{ defaultModel: string; models: ModelInfo[]; notice?: string }> {
    const served = new Map(this.servers.map((s) => [s.provider, s]));
    const notices: string[] = [];
    const refs: string[] = this.choice.cycle().filter((ref) => !served.has(modelParts(ref).provider));
    for (const server of this.servers) {
      const got = await this.ask(server);
      if (got.ids) refs.push(...got.ids.map((id) => modelIdOf(server.provider, id)));
      else notices.push(`${server.provider}'s model server (${server.modelsUrl}) did not answer (${got.why}): only the default model is listed for it`);
    }
    if (!refs.includes(this.defaultModel)) refs.unshift(this.defaultModel);
    const models = [...new Set(refs)].map((ref) => modelInfo(this.choice, ref)).sort((a, b) => a.provider.localeCompare(b.provider) || a.id.localeCompare(b.id));
    return { defaultModel: this.defaultModel, models, ...(notices.length ? { notice: notices.join('; ') } : {}) };
  }

  /** `GET /api/models`' answer. */
  async list(): Promise<ModelsReply> {
    const { defaultModel, models, notice } = await this.runnable();
    return { default_model: defaultModel, models: models.map(wire), ...(notice !== undefined ? { notice } : {}) };
  }

  private async ask(server: ModelServer): Promise<Asked> {
    const now = (this.options.now ?? Date.now)();
    const cached = this.asked.get(server.modelsUrl);
    if (cached && now - cached.at < (this.options.cacheMs ?? CACHE_MS)) return cached;
    const asked = { at: now, ...(await this.fetchIds(server)) };
    this.asked.set(server.modelsUrl, asked);
    return asked;
  }

  private async fetchIds(server: ModelServer): Promise<{ ids: string[] } | { why: string }> {
    try {
      const res = await (this.options.fetch ?? fetch)(server.modelsUrl, { headers: server.headers, signal: AbortSignal.timeout(this.options.timeoutMs ?? ASK_TIMEOUT_MS) });
      if (!res.ok) return { why: `HTTP ${res.status}` };
      const parsed = modelListSchema.safeParse(await res.json());
      if (!parsed.success) return { why: 'its answer is not a model list' };
      return { ids: [...new Set(parsed.data.data.map((m) => m.id))] };
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      return { why: (err as Error).name === 'TimeoutError' ? 'no answer in time' : (cause ?? (err as Error).message) };
    }
  }
}

function wire(m: ModelInfo): ModelsReply['models'][number] {
  return { ref: m.ref, provider: m.provider, id: m.id, name: m.name, context_window: m.contextWindow, thinking: m.reasoning };
}
