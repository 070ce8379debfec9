import * as acp from '@agentclientprotocol/sdk';
import type { z } from 'zod';
import { describeAcpParamsIssues } from '../../../contracts/acp-requests';
import { ErrorCode } from '../../../contracts/errors';
import type { Logger } from '../../common/logger';

/**
 * The params parser of one ACP method (`app.onRequest(method, strictParams(schema), handler)`): the
 * request's params checked against strand's strict schema (contracts/acp-requests.ts) before the
 * handler runs. The SDK's built-in parsers drop unknown keys before a handler could see them, so the
 * check cannot live inside the handler. A problem answers -32602 naming each key by its path
 * (`params.prompt[1].annotations.foo: unrecognized key`), with the list in `data.problems`.
 */
export function strictParams<S extends z.ZodType>(schema: S): (params: unknown) => z.output<S> {
  return (params) => {
    // Absent params are an empty object, as the SDK's own parsers take them (so a missing key is named).
    const checked = schema.safeParse(params ?? {});
    if (checked.success) return checked.data;
    const problems = describeAcpParamsIssues(checked.error);
    throw acp.RequestError.invalidParams({ code: ErrorCode.INVALID_REQUEST, problems }, problems.join('; '));
  };
}

/**
 * The same check for a notification (`session/cancel`), which has no answer: params that do not fit
 * are not acted on (the handler gets `undefined`) and are logged as a warning naming each key. Not
 * an error: bad input is the client's mistake, and editors show every stderr line as the agent's
 * error (STRAND_LOG_LEVEL=warn shows it), as the SDK logs a notification it cannot handle.
 */
export function strictNotificationParams<S extends z.ZodType>(schema: S, method: string, log: Logger): (params: unknown) => z.output<S> | undefined {
  const parse = strictParams(schema);
  return (params) => {
    try {
      return parse(params);
    } catch (err) {
      const refused = err as acp.RequestError;
      log.warn({ method, problems: (refused.data as { problems: string[] }).problems }, `${method} not acted on: ${refused.message}`);
      return undefined;
    }
  };
}
