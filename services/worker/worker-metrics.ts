import { Counter, Histogram } from 'prom-client';
import type { InjectedSinks } from '@temporalio/worker';
import { LATENCY_BUCKETS, TOOL_BUCKETS, TURN_BUCKETS, type MetricsRegistry } from '../common/metrics';
import type { TurnMetricsSinks } from './workflow-interceptors/turn-metrics';

/**
 * What a worker measures (docs/observability.md says where each figure comes from and why it is
 * counted once across workers): the turns its workflows run, the model steps and tools its activities
 * run, and the events they store.
 */
export interface WorkerMetrics {
  turnsStarted: Counter;
  turnsFinished: Counter<'outcome'>;
  turnDuration: Histogram<'outcome'>;
  firstDelta: Histogram;
  stepDuration: Histogram<'provider' | 'outcome'>;
  stepFirstOutput: Histogram<'provider'>;
  providerErrors: Counter<'provider' | 'class'>;
  retries: Counter<'kind'>;
  activityRetries: Counter<'activity'>;
  toolDuration: Histogram<'tool' | 'outcome'>;
  approvalsRequested: Counter;
  approvalsResolved: Counter<'decision'>;
}

export function createWorkerMetrics(registers: MetricsRegistry): WorkerMetrics {
  const r = { registers: [registers] };
  return {
    turnsStarted: new Counter({ ...r, name: 'strand_turns_started_total', help: 'Turns (turnWorkflow runs) started' }),
    turnsFinished: new Counter({ ...r, name: 'strand_turns_finished_total', help: 'Turns finished, by outcome (done, error, aborted)', labelNames: ['outcome'] }),
    turnDuration: new Histogram({ ...r, name: 'strand_turn_duration_seconds', help: 'From a turn workflow start to its end, by outcome', labelNames: ['outcome'], buckets: TURN_BUCKETS }),
    firstDelta: new Histogram({ ...r, name: 'strand_turn_first_delta_seconds', help: "From a turn's start to the first output of its first model step being stored", buckets: LATENCY_BUCKETS }),
    stepDuration: new Histogram({ ...r, name: 'strand_model_step_duration_seconds', help: 'One model step activity attempt, by provider and outcome (ok, aborted, a provider error class, infrastructure, failed)', labelNames: ['provider', 'outcome'], buckets: LATENCY_BUCKETS }),
    stepFirstOutput: new Histogram({ ...r, name: 'strand_model_step_first_output_seconds', help: 'From a model step attempt starting to its first output being stored, by provider', labelNames: ['provider'], buckets: LATENCY_BUCKETS }),
    providerErrors: new Counter({ ...r, name: 'strand_provider_errors_total', help: 'Model steps failed by the provider, by provider and class', labelNames: ['provider', 'class'] }),
    retries: new Counter({ ...r, name: 'strand_retries_total', help: 'Step retries a turn scheduled (retry.scheduled), by kind', labelNames: ['kind'] }),
    activityRetries: new Counter({ ...r, name: 'strand_activity_retries_total', help: 'Activity attempts after the first (a worker crashed or strand infrastructure failed), by activity', labelNames: ['activity'] }),
    toolDuration: new Histogram({ ...r, name: 'strand_tool_duration_seconds', help: 'Tool runs, by tool and outcome (ok, error, aborted, failed)', labelNames: ['tool', 'outcome'], buckets: TOOL_BUCKETS }),
    approvalsRequested: new Counter({ ...r, name: 'strand_approvals_requested_total', help: 'Tool calls that asked a person for approval' }),
    approvalsResolved: new Counter({ ...r, name: 'strand_approvals_resolved_total', help: 'Approvals answered or timed out, by decision', labelNames: ['decision'] }),
  };
}

/** The sink the turn interceptors (workflow-interceptors/turn-metrics.ts) report to; never called on replay. */
export function turnMetricsSinks(metrics: WorkerMetrics): InjectedSinks<TurnMetricsSinks> {
  return {
    turnMetrics: {
      started: { fn: () => metrics.turnsStarted.inc() },
      finished: {
        fn: (_info, outcome, durationMs) => {
          metrics.turnsFinished.inc({ outcome });
          metrics.turnDuration.observe({ outcome }, Math.max(0, durationMs) / 1000);
        },
      },
    },
  };
}
