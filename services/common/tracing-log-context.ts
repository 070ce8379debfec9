import { AsyncLocalStorage } from 'node:async_hooks';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * What the log lines written while handling one thing are about: a request, a session, a turn.
 * A handler sets them once around its work (`withLogFields`) and every line written in that async
 * context carries them, whoever writes it (the logger's mixin reads them: logger.ts), together with
 * the trace and span ids when tracing is on, so a log line leads to its trace.
 */
export interface LogFields {
  request_id?: string;
  session?: string;
  turn?: string;
  [key: string]: string | number | undefined;
}

const current = new AsyncLocalStorage<LogFields>();

/** Runs `fn` with `fields` added to those already in effect. */
export function withLogFields<T>(fields: LogFields, fn: () => T): T {
  const outer = current.getStore();
  return current.run(outer ? { ...outer, ...fields } : fields, fn);
}

/** Runs `fn` with no fields: work it starts that outlives the caller (a shared queue's pump) is about none of them. */
export function withoutLogFields<T>(fn: () => T): T {
  return current.exit(fn);
}

/**
 * The fields in effect here (plus trace ids), for the logger's mixin; a line's own fields win over
 * these. A fresh object each time: pino merges a line's fields into what the mixin returns.
 */
export function logContextFields(): Record<string, unknown> {
  const fields = current.getStore();
  const span = trace.getSpan(context.active())?.spanContext();
  if (!span || !isSpanContextValid(span)) return { ...fields };
  return { ...fields, trace_id: span.traceId, span_id: span.spanId };
}
