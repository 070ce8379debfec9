import * as otel from '@opentelemetry/api';
import { extractContextFromHeaders, headersWithContext } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import * as wf from '@temporalio/workflow';
import { checkedPromptUpdate, promptUpdate } from '../../../contracts/session-workflow';
import { TURN_WORKFLOW_TYPE } from '../../../contracts/workflow-ids';
import { workflowTracing } from './tracing-provider';

/**
 * Workflow spans, bundled into the worker's workflow code only while tracing is on (workflow-bundle.ts),
 * never part of workflows/. They continue the trace a client's Temporal call carried in its headers
 * and hand it on to every activity and child the workflow starts, with the span names of
 * @temporalio/interceptors-opentelemetry, so its client and activity interceptors (gateway, worker)
 * join them into one trace.
 *
 * Two things differ from that library's workflow interceptors, both for replay. No span waits on
 * anything: each starts, hands the workflow's own promise back untouched and ends beside it (the
 * library awaits around the workflow function and each call, which moves a workflow's steps against
 * its handlers). And ids draw nothing from the run's random sequence (tracing-provider.ts). So a
 * history replays the same with or without these interceptors, and tracing can be turned on or off
 * while sessions and turns run (replay.test.ts proves it on the recorded histories).
 *
 * The session starts a turn from its main loop, not from the prompt update that asked for it (`prompt`,
 * or `checkedPrompt` when the gateway sent it without a store read), so the update's span context is
 * kept by the turn number it answered with and the child is started inside it: gateway command →
 * prompt update → turn start → turn → model steps and tools form one trace.
 * Only what history repeats has a span (runs, updates, activities, children): queries and rejected
 * updates would shift the span ids of a replay.
 */

type Next<I, M extends keyof I> = wf.Next<I, M>;

/** The updates that take a prompt and answer with the turn number that will run it. */
const PROMPT_UPDATES: ReadonlySet<string> = new Set([promptUpdate.name, checkedPromptUpdate.name]);

/** Runs `fn` in a new span's context; the span ends when the promise `fn` returns settles, which is returned as it is. */
function spanned<T>(name: string, parent: otel.Context, fn: () => Promise<T>, ok: (err: unknown) => boolean = () => false): Promise<T> {
  const span = workflowTracing().tracer.startSpan(name, {}, parent);
  const result = otel.context.with(otel.trace.setSpan(parent, span), fn);
  result.then(
    () => span.end(),
    (err: unknown) => {
      if (!ok(err)) span.setStatus({ code: otel.SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
      span.end();
    },
  );
  return result;
}

const isContinueAsNew = (err: unknown) => err instanceof wf.ContinueAsNew;

class InboundSpans implements wf.WorkflowInboundCallsInterceptor {
  constructor(private readonly promptContexts: Map<number, otel.Context>) {}

  execute(input: wf.WorkflowExecuteInput, next: Next<wf.WorkflowInboundCallsInterceptor, 'execute'>): Promise<unknown> {
    const parent = extractContextFromHeaders(input.headers) ?? otel.context.active();
    return spanned(`RunWorkflow:${wf.workflowInfo().workflowType}`, parent, () => next(input), isContinueAsNew);
  }

  handleUpdate(input: wf.UpdateInput, next: Next<wf.WorkflowInboundCallsInterceptor, 'handleUpdate'>): Promise<unknown> {
    const parent = extractContextFromHeaders(input.headers) ?? otel.context.active();
    return spanned(`HandleUpdate:${input.name}`, parent, () => {
      const update = otel.context.active();
      const handled = next(input);
      // Kept in the same step as the handler's result, before the main loop can start the turn.
      if (PROMPT_UPDATES.has(input.name)) handled.then((result) => this.keepPrompt(result, update), () => undefined);
      return handled;
    });
  }

  private keepPrompt(result: unknown, update: otel.Context): void {
    const r = result as { turn_number?: unknown; duplicate?: unknown; steered?: unknown } | undefined;
    if (typeof r?.turn_number === 'number' && r.duplicate !== true && r.steered !== true) this.promptContexts.set(r.turn_number, update);
  }
}

class OutboundSpans implements wf.WorkflowOutboundCallsInterceptor {
  constructor(private readonly promptContexts: Map<number, otel.Context>) {}

  scheduleActivity(input: wf.ActivityInput, next: Next<wf.WorkflowOutboundCallsInterceptor, 'scheduleActivity'>): Promise<unknown> {
    return spanned(`StartActivity:${input.activityType}`, otel.context.active(), () => next({ ...input, headers: headersWithContext(input.headers) }));
  }

  startChildWorkflowExecution(
    input: wf.StartChildWorkflowExecutionInput,
    next: Next<wf.WorkflowOutboundCallsInterceptor, 'startChildWorkflowExecution'>,
  ): Promise<[Promise<string>, Promise<unknown>]> {
    const turn = input.workflowType === TURN_WORKFLOW_TYPE ? (input.options.args?.[0] as { turn_number?: unknown } | undefined)?.turn_number : undefined;
    const prompt = typeof turn === 'number' ? this.promptContexts.get(turn) : undefined;
    if (typeof turn === 'number') this.promptContexts.delete(turn);
    return spanned(`StartChildWorkflow:${input.workflowType}`, prompt ?? otel.context.active(), () => next({ ...input, headers: headersWithContext(input.headers) }));
  }

  continueAsNew(input: wf.ContinueAsNewInput, next: Next<wf.WorkflowOutboundCallsInterceptor, 'continueAsNew'>): Promise<never> {
    // The next run continues the trace this one is in.
    return next({ ...input, headers: headersWithContext(input.headers) });
  }
}

class ForgetRun implements wf.WorkflowInternalsInterceptor {
  dispose(input: wf.DisposeInput, next: Next<wf.WorkflowInternalsInterceptor, 'dispose'>): void {
    try {
      workflowTracing().ids.forget(wf.workflowInfo().runId);
    } finally {
      next(input);
    }
  }
}

export const interceptors: wf.WorkflowInterceptorsFactory = () => {
  workflowTracing();
  const promptContexts = new Map<number, otel.Context>();
  return {
    inbound: [new InboundSpans(promptContexts)],
    outbound: [new OutboundSpans(promptContexts)],
    internals: [new ForgetRun()],
  };
};
