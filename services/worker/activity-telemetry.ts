import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from '@temporalio/activity';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import type { ActivityExecuteInput, ActivityInboundCallsInterceptor, ActivityInterceptors, Next } from '@temporalio/worker';
import { INFRA_FAILURE_TYPES, providerKindOf } from '../../contracts/failures';
import { parseModelId } from '../../contracts/models';
import { toolDefinition } from '../../contracts/tools';
import { withLogFields } from '../common/tracing-log-context';
import type { WorkerMetrics } from './worker-metrics';
import { TURN_STARTED_HEADER } from './workflow-interceptors/turn-metrics';

/**
 * One activity attempt as the telemetry sees it, in the attempt's async context, so the event
 * publisher (observed-publisher.ts) can tell which attempt stored an event and when it began.
 */
export interface ActivityScope {
  activity: string;
  /** Temporal's attempt of this activity (> 1: a retry after a crash or an infrastructure fault). */
  attempt: number;
  startedAt: number;
  /** Model steps: the provider, and whether this is the turn's first step, first try (its first output is the turn's first delta). */
  provider?: string;
  turnFirstStep?: boolean;
  /** When the turn began (the turn interceptor's header), for the first-delta latency. */
  turnStartedMs?: number;
  /** Set once the attempt's first output is stored. */
  outputSeen?: boolean;
}

export const activityScope = new AsyncLocalStorage<ActivityScope>();

/** The ids an activity's input names: `{session_id, turn_id, step, attempt, model, name}` or `(sessionId, …)`. */
interface ActivityArgs {
  session_id?: string;
  turn_id?: string;
  step?: number;
  attempt?: number;
  model?: string;
  name?: string;
}

/**
 * Times every activity attempt and sorts its outcome: model steps by provider and failure class, tools
 * by tool; counts retried attempts; and runs the attempt with its session and turn on every log line.
 * Measured around the activity, so no activity's own code changes.
 */
export function activityTelemetry(metrics: WorkerMetrics, now: () => number = Date.now): (ctx: Context) => ActivityInterceptors {
  return (ctx) => ({
    inbound: {
      execute(input: ActivityExecuteInput, next: Next<ActivityInboundCallsInterceptor, 'execute'>): Promise<unknown> {
        const { activityType: activity, attempt } = ctx.info;
        if (attempt > 1) metrics.activityRetries.inc({ activity });
        const first = input.args[0];
        const args: ActivityArgs = first && typeof first === 'object' ? (first as ActivityArgs) : {};
        const session = typeof first === 'string' ? first : args.session_id;
        const scope: ActivityScope = { activity, attempt, startedAt: now() };
        if (activity === 'streamModelStep') {
          scope.provider = providerOf(args.model);
          scope.turnFirstStep = args.step === 0 && (args.attempt ?? 1) === 1 && attempt === 1;
          const header = input.headers[TURN_STARTED_HEADER];
          if (header) scope.turnStartedMs = defaultPayloadConverter.fromPayload<number>(header);
        }
        const fields = { activity, ...(session ? { session } : {}), ...(args.turn_id ? { turn: args.turn_id } : {}) };
        return withLogFields(fields, () => activityScope.run(scope, () => measured(scope, args, () => next(input))));
      },
    },
  });

  async function measured(scope: ActivityScope, args: ActivityArgs, run: () => Promise<unknown>): Promise<unknown> {
    const seconds = () => (now() - scope.startedAt) / 1000;
    try {
      const result = await run();
      if (scope.activity === 'streamModelStep') metrics.stepDuration.observe({ provider: scope.provider!, outcome: 'ok' }, seconds());
      if (scope.activity === 'runTool') {
        const isError = (result as { is_error?: boolean } | undefined)?.is_error === true;
        metrics.toolDuration.observe({ tool: toolLabel(args.name), outcome: isError ? 'error' : 'ok' }, seconds());
      }
      return result;
    } catch (err) {
      const outcome = outcomeOf(err);
      if (scope.activity === 'streamModelStep') {
        metrics.stepDuration.observe({ provider: scope.provider!, outcome }, seconds());
        const kind = providerKindOf(err instanceof ApplicationFailure ? err.type : undefined);
        if (kind) metrics.providerErrors.inc({ provider: scope.provider!, class: kind });
      }
      if (scope.activity === 'runTool') metrics.toolDuration.observe({ tool: toolLabel(args.name), outcome: outcome === 'aborted' ? 'aborted' : 'failed' }, seconds());
      throw err;
    }
  }
}

/** How an attempt failed: aborted, a provider error class, strand's infrastructure, or anything else. */
function outcomeOf(err: unknown): string {
  if ((err as Error | undefined)?.name === 'CancelledFailure') return 'aborted';
  const type = err instanceof ApplicationFailure ? err.type : undefined;
  const kind = providerKindOf(type);
  if (kind) return kind;
  return type && INFRA_FAILURE_TYPES.includes(type) ? 'infrastructure' : 'failed';
}

function providerOf(model: string | undefined): string {
  try {
    return model ? parseModelId(model).provider : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Tool names come from the model: any it may not call is one label, so a model cannot grow the series. */
function toolLabel(name: string | undefined): string {
  return name && toolDefinition(name) ? name : 'other';
}
