import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { ModelCatalog } from '../../../contracts/model-catalog';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { SessionMeta } from '../../../contracts/session-store/schemas';
import type { TurnJob } from '../temporal/jobs';
import type { SessionCommands } from '../temporal/session-commands';
import { sessionStats } from './session-stats';
import { storedSettings } from './session-settings-change';
import { ownerOf } from './start-info';

/** A running (or finished) turn as `/api/turns` shows it. */
export interface RunningTurnView extends TurnJob {
  steps: number;
  cost_usd: number;
  model: string;
  tokens: { input: number; output: number };
  retry_attempt: number;
  workflow_url: string | null;
}

export interface RunningTurnsDeps {
  store: StoreClient;
  commands: SessionCommands;
  catalog: ModelCatalog;
  /** The model of a session whose settings cannot be read (it only sizes a context window, which a turn does not show). */
  defaultModel: string;
  /** A turn's workflow in the Temporal Web UI, or null when none is configured (temporal/jobs.ts workflowUrl). */
  workflowUrl?: (jobId: string) => string | null;
}

/**
 * The turns running across sessions (`/api/turns`, `/v1/status`), with their progress and cost so far,
 * and the stop an operator asks for. A turn is looked up by its workflow id, not through a session
 * reference: who may see it is its session owner's business, checked here.
 */
export class RunningTurns {
  constructor(private readonly deps: RunningTurnsDeps) {}

  /** Running turns of every session (the principal's only), with progress and cost so far. */
  async list(principal?: string): Promise<RunningTurnView[]> {
    const jobs = await this.deps.commands.runningJobs(principal);
    return Promise.all(jobs.map((j) => this.view(j)));
  }

  async get(jobId: string, principal?: string): Promise<RunningTurnView> {
    const job = await this.deps.commands.job(jobId);
    const meta = job ? await this.deps.store.get({ session_id: job.session_id }) : null;
    const owner = ownerOf(meta?.meta);
    if (!job || (principal !== undefined && owner !== undefined && owner !== principal)) throw new StrandError(ErrorCode.TURN_NOT_FOUND, `no turn ${jobId}`);
    return this.view(job, meta);
  }

  /** Stops a running turn as an interrupt does: it ends within a second, its partial answer kept. */
  async cancel(jobId: string, principal?: string): Promise<{ status: 'cancelled' | 'not_running' }> {
    const job = await this.get(jobId, principal);
    if (job.status !== 'running') return { status: 'not_running' };
    const state = await this.deps.commands.live(job.session_id);
    if (state?.active_turn !== job.turn_id) return { status: 'not_running' };
    const result = await this.deps.commands.abort(job.session_id);
    return { status: result.aborted ? 'cancelled' : 'not_running' };
  }

  private async view(job: TurnJob, known?: { meta: SessionMeta } | null): Promise<RunningTurnView> {
    const [state, cost] = await Promise.all([
      job.status === 'running' ? this.deps.commands.live(job.session_id) : Promise.resolve(undefined),
      // The model only sizes the context window, which a job does not show.
      sessionStats(this.deps.store, job.session_id, { model: this.deps.defaultModel, catalog: this.deps.catalog, turn: job.turn_id }),
    ]);
    // The session's model: its workflow's settings while it runs, else what the store holds.
    const stored = state?.settings ? undefined : (known ?? (await this.deps.store.get({ session_id: job.session_id })));
    const model = state?.settings?.model ?? (stored ? storedSettings(stored.meta).model : this.deps.defaultModel);
    const current = state?.active_turn === job.turn_id;
    return {
      ...job,
      phase: current ? state.phase : job.phase,
      steps: cost.steps + (current && state.step !== null && state.streaming ? 1 : 0),
      cost_usd: cost.usage.cost_usd,
      model,
      tokens: { input: cost.usage.input, output: cost.usage.output },
      retry_attempt: current ? state.retry_attempt : 0,
      workflow_url: this.deps.workflowUrl?.(job.job_id) ?? null,
    };
  }
}
