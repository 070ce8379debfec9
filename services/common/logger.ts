import pino, { type Logger } from 'pino';
import { logContextFields } from './tracing-log-context';

/**
 * Structured JSON logs on stdout (one object per line). `strand up` renders them as readable,
 * prefixed lines; containers ship them as they are. Lines written while a request, session or turn is
 * handled carry its ids (tracing-log-context.ts).
 */
export function createLogger(service: string, level: string = process.env.STRAND_LOG_LEVEL || 'info'): Logger {
  return pino({ name: service, level, base: { service }, mixin: logContextFields });
}

export type { Logger };
