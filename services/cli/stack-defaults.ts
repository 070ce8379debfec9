import { modelsReplySchema, type ModelsReply } from '../../contracts/http-replies';
import { ApiClient, ApiError, ApiUnreachable } from '../../clients/core/api-client';
import type { GatewayAddress } from '../../clients/terminal/gateway-address';
import type { ModelInfo } from '../gateway/sessions/model-list';
import type { RunnableModels } from '../gateway/sessions/stack-models';

/** How long `strand acp` waits for the gateway's model list before it says the stack is not reachable. */
const ASK_TIMEOUT_MS = 3_000;
/** The gateway caches its model servers' answers itself; this only spares a request per picker. */
const CACHE_MS = 10_000;

/**
 * The running stack's defaults as `strand acp` takes them: its default model and the models it can
 * run, from the gateway's `GET /api/models`, not from the agent's own environment (an editor starts
 * the agent without the stack's provider keys: it would otherwise pick `scripted/echo` and offer
 * nothing else). `explicitModel` (STRAND_DEFAULT_MODEL in the agent's environment) still wins as the
 * default. A gateway that does not answer, or refuses the token, is an error naming it: the agent
 * refuses the session rather than guessing.
 */
export class GatewayModels implements RunnableModels {
  private readonly client: ApiClient;
  private cached: { at: number; reply: ModelsReply } | undefined;

  constructor(
    private readonly address: GatewayAddress,
    private readonly explicitModel?: string,
  ) {
    this.client = new ApiClient({ baseUrl: address.url, token: () => address.token, timeoutMs: ASK_TIMEOUT_MS, unreachableHint: 'start the stack with `npm start` in the strand repository, or name its gateway in STRAND_URL' });
  }

  async list(): Promise<ModelsReply> {
    if (this.cached && Date.now() - this.cached.at < CACHE_MS) return this.cached.reply;
    let body: unknown;
    try {
      body = await this.client.call('GET', '/api/models');
    } catch (err) {
      if (err instanceof ApiUnreachable) throw new Error(err.message);
      if (err instanceof ApiError && err.status === 401) throw new Error(`the gateway at ${this.address.url} refused ${this.address.token ? 'the token in STRAND_TOKEN' : 'a request without a token'}: give the agent the stack's token in STRAND_TOKEN`);
      throw new Error(`the gateway at ${this.address.url} did not list its models: ${(err as Error).message}`);
    }
    const parsed = modelsReplySchema.safeParse(body);
    if (!parsed.success) throw new Error(`the gateway at ${this.address.url} answered GET /api/models with no model list: is STRAND_URL a strand gateway?`);
    const reply = { ...parsed.data, ...(this.explicitModel ? { default_model: this.explicitModel } : {}) };
    this.cached = { at: Date.now(), reply };
    return reply;
  }

  async runnable(): Promise<{ defaultModel: string; models: ModelInfo[]; notice?: string }> {
    const { default_model, models, notice } = await this.list();
    const infos = models.map((m) => ({ ref: m.ref, provider: m.provider, id: m.id, name: m.name, reasoning: m.thinking, contextWindow: m.context_window }));
    return { defaultModel: default_model, models: infos, ...(notice !== undefined ? { notice } : {}) };
  }
}
