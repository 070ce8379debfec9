import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import schema from '@agentclientprotocol/sdk/schema/v1/schema.json';

/**
 * The ACP v1 JSON Schema shipped with the SDK, applied strictly to what an agent sends. The SDK's
 * own parser forgives (an unknown tool kind or status, a malformed content item or location is
 * dropped without a word), so a test that only reads through the SDK cannot see such a mistake.
 */
const defs = (schema as { $defs: Record<string, unknown> }).$defs;
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
const validators = new Map<string, ValidateFunction>();

function validator(def: string): ValidateFunction {
  let v = validators.get(def);
  if (!v) {
    if (!defs[def]) throw new Error(`the ACP schema has no ${def}`);
    v = ajv.compile({ $ref: `#/$defs/${def}`, $defs: defs });
    validators.set(def, v);
  }
  return v;
}

/** The result type of each agent method a client calls. */
const RESULTS: Record<string, string> = {
  initialize: 'InitializeResponse',
  authenticate: 'AuthenticateResponse',
  'session/new': 'NewSessionResponse',
  'session/load': 'LoadSessionResponse',
  'session/prompt': 'PromptResponse',
  'session/set_mode': 'SetSessionModeResponse',
  'session/set_config_option': 'SetSessionConfigOptionResponse',
};

/** The params type of each method an agent calls on a client. */
const AGENT_CALLS: Record<string, string> = {
  'session/update': 'SessionNotification',
  'session/request_permission': 'RequestPermissionRequest',
};

/** What is wrong with `value` as the named ACP type ('' when nothing). */
export function schemaErrors(def: string, value: unknown): string {
  const v = validator(def);
  return v(value) ? '' : ajv.errorsText(v.errors, { dataVar: def });
}

/**
 * Checks one JSON-RPC message an agent wrote: its envelope, and against the schema the params of
 * its requests and notifications, and the result of a response to `method` (the request it answers,
 * when the client sent it). Returns the problems, none for a valid message.
 */
export function agentMessageErrors(msg: any, method: string | undefined): string[] {
  if (!msg || typeof msg !== 'object' || msg.jsonrpc !== '2.0') return [`not a JSON-RPC 2.0 message: ${JSON.stringify(msg)}`];
  if (typeof msg.method === 'string') {
    const def = AGENT_CALLS[msg.method] ?? (msg.method === '$/cancel_request' ? 'CancelRequestNotification' : undefined);
    if (!def) return [`the agent called an unexpected method ${msg.method}`];
    const err = schemaErrors(def, msg.params);
    return err ? [`${msg.method}: ${err} in ${JSON.stringify(msg.params).slice(0, 400)}`] : [];
  }
  if ('error' in msg) {
    const err = schemaErrors('Error', msg.error);
    return err ? [`error response: ${err}`] : [];
  }
  if (!('result' in msg)) return [`a response with neither result nor error: ${JSON.stringify(msg)}`];
  const def = method ? RESULTS[method] : undefined;
  if (!def) return [];
  const err = schemaErrors(def, msg.result);
  return err ? [`${method} result: ${err} in ${JSON.stringify(msg.result).slice(0, 400)}`] : [];
}
