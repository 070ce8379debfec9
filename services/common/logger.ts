import pino, { type Logger } from 'pino';

/**
 * Structured JSON logs on stdout (one object per line). `strand up` renders them as readable,
 * prefixed lines; containers ship them as they are.
 */
export function createLogger(service: string, level: string = process.env.STRAND_LOG_LEVEL || 'info'): Logger {
  return pino({ name: service, level, base: { service } });
}

export type { Logger };
