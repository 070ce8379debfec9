import * as wf from '@temporalio/workflow';
import { TURN_WORKFLOW_TYPE } from '../../../contracts/workflow-ids';

/**
 * Workflow interceptors bundled into the worker's workflow code (workflow-bundle.ts), never part of
 * workflows/: they count each turn once, where it runs, and tell its activities when it began.
 *
 * A turn is its `turnWorkflow` run. Its start and end reach the worker through a sink (turn-metrics
 * in worker-metrics.ts), which Temporal does not call while replaying history: a turn replayed after
 * a cache eviction or on another worker is not counted again. A turn continued as new is one turn.
 * Durations are workflow time (the server's clock at each task), so worker clocks do not skew them.
 */

/** Header on every activity a turn schedules: when the turn began (ms since the epoch), for its first-delta latency. */
export const TURN_STARTED_HEADER = 'strand-turn-started-ms';

export type TurnOutcome = 'done' | 'error' | 'aborted';

export interface TurnMetricsSinks extends wf.Sinks {
  turnMetrics: {
    started(): void;
    finished(outcome: TurnOutcome, durationMs: number): void;
  };
}

const { turnMetrics } = wf.proxySinks<TurnMetricsSinks>();

const isTurn = () => wf.workflowInfo().workflowType === TURN_WORKFLOW_TYPE;

class TurnLifecycle implements wf.WorkflowInboundCallsInterceptor {
  execute(input: wf.WorkflowExecuteInput, next: wf.Next<wf.WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    if (!isTurn()) return next(input);
    const info = wf.workflowInfo();
    if (info.continuedFromExecutionRunId === undefined) turnMetrics.started();
    const finished = (outcome: TurnOutcome) => turnMetrics.finished(outcome, Date.now() - info.startTime.getTime());
    // The run's own promise goes back untouched (no await added to the workflow): the end is noted beside it.
    const run = next(input);
    run.then(
      (result) => finished(outcomeOf(result)),
      (err: unknown) => {
        if (!(err instanceof wf.ContinueAsNew)) finished(wf.isCancellation(err) ? 'aborted' : 'error');
      },
    );
    return run;
  }
}

class TurnStartHeader implements wf.WorkflowOutboundCallsInterceptor {
  scheduleActivity(input: wf.ActivityInput, next: wf.Next<wf.WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    if (!isTurn()) return next(input);
    const started = wf.defaultPayloadConverter.toPayload(wf.workflowInfo().startTime.getTime());
    return next({ ...input, headers: { ...input.headers, [TURN_STARTED_HEADER]: started } });
  }
}

function outcomeOf(result: unknown): TurnOutcome {
  const outcome = (result as { outcome?: unknown } | undefined)?.outcome;
  return outcome === 'done' || outcome === 'aborted' ? outcome : 'error';
}

export const interceptors: wf.WorkflowInterceptorsFactory = () => ({
  inbound: [new TurnLifecycle()],
  outbound: [new TurnStartHeader()],
});
