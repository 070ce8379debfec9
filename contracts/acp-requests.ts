import type * as acp from '@agentclientprotocol/sdk';
import { z } from 'zod';
import { strictRequest } from './strict-request';

/**
 * The params of every ACP method `strand acp` serves, strict at every depth (docs/acp.md, "Strict
 * params"): a key the ACP v1 spec does not define, anywhere in a request, is -32602 naming its path,
 * never dropped. The SDK's own schemas strip unknown keys and are not part of its public API, so the
 * agent parses with these instead. Names, types and nullability follow the spec (the SDK's generated
 * types and `schema/v1/schema.json`); the checks at the end of this file fail to compile when a
 * schema's output stops fitting the SDK's request type, so an SDK upgrade that changes a request
 * shows here. Values are the spec's types exactly: the SDK's habit of turning a mistyped optional
 * value into its default is not kept, since it would also swallow an unknown key below that value.
 *
 * Two deliberate openings, and only these:
 * 1. `_meta` on every object (`withMeta`).
 * 2. the client's capabilities in `initialize` (`clientCapabilities`).
 */

// 1. `_meta` is accepted on every object: the ACP spec reserves it for extensions at any level.
const meta = z.record(z.string(), z.unknown()).nullish();
const withMeta = <S extends z.core.$ZodLooseShape>(shape: S) => z.object({ ...shape, _meta: meta });

/** An array the spec lets a client send as `null`, which means empty (`x-deserialize-default-on-null`). */
const listOrNull = <T extends z.ZodType>(item: T) => z.array(item).nullable().transform((list) => list ?? []);

const sessionId = z.string();

/**
 * 2. Not strict: clients advertise capabilities an agent may not know yet, and refusing a newer editor
 * for that would break it for nothing. Known fields keep the spec's types, and a field of the wrong
 * type is dropped as the spec's deserializer does (`x-deserialize-default-on-error`): strand reads
 * nothing here but `session.notices`.
 */
const capability = z.looseObject({ _meta: meta.catch(undefined) });
const clientCapabilities = z.looseObject({
  fs: z.looseObject({ readTextFile: z.boolean().optional().catch(undefined), writeTextFile: z.boolean().optional().catch(undefined), _meta: meta.catch(undefined) }).optional().catch(undefined),
  terminal: z.boolean().optional().catch(undefined),
  session: z.looseObject({ compaction: capability.nullish().catch(undefined), configOptions: capability.nullish().catch(undefined), notices: capability.nullish().catch(undefined), _meta: meta.catch(undefined) }).nullish().catch(undefined),
  auth: z.looseObject({ terminal: z.boolean().optional().catch(undefined), _meta: meta.catch(undefined) }).optional().catch(undefined),
  elicitation: z.looseObject({ form: capability.nullish().catch(undefined), url: capability.nullish().catch(undefined), _meta: meta.catch(undefined) }).nullish().catch(undefined),
  _meta: meta.catch(undefined),
});

const implementation = withMeta({ name: z.string(), title: z.string().nullish(), version: z.string() });

export const acpInitializeParams = strictRequest(
  withMeta({ protocolVersion: z.number().int().min(0).max(65535), clientCapabilities: clientCapabilities.optional(), clientInfo: implementation.nullish() }),
);

export const acpAuthenticateParams = strictRequest(withMeta({ methodId: z.string() }));

const nameValue = withMeta({ name: z.string(), value: z.string() });

/** One MCP server of session/new or session/load: `type` says `http` or `sse`; a stdio server has no `type`. */
const mcpServer = z.discriminatedUnion(
  'type',
  [
    withMeta({ type: z.literal('http'), name: z.string(), url: z.string(), headers: listOrNull(nameValue) }),
    withMeta({ type: z.literal('sse'), name: z.string(), url: z.string(), headers: listOrNull(nameValue) }),
    withMeta({ type: z.undefined().optional(), name: z.string(), command: z.string(), args: listOrNull(z.string()), env: listOrNull(nameValue) }),
  ],
  { error: 'an MCP server\'s type is "http" or "sse", and a stdio server has none' },
);

export const acpNewSessionParams = strictRequest(
  withMeta({ cwd: z.string(), additionalDirectories: listOrNull(z.string()).optional(), mcpServers: listOrNull(mcpServer) }),
);

export const acpLoadSessionParams = strictRequest(
  withMeta({ sessionId, cwd: z.string(), additionalDirectories: listOrNull(z.string()).optional(), mcpServers: listOrNull(mcpServer) }),
);

const annotations = withMeta({
  audience: z.array(z.enum(['assistant', 'user'])).nullish(),
  lastModified: z.string().nullish(),
  priority: z.number().nullish(),
}).nullish();

/** The embedded resource's contents: text (`text`) or binary (`blob`). */
const resourceContents = z.union([
  withMeta({ uri: z.string(), text: z.string(), mimeType: z.string().nullish() }),
  withMeta({ uri: z.string(), blob: z.string(), mimeType: z.string().nullish() }),
]);

/**
 * Every content block kind of the spec. Audio (and an image strand cannot use) is refused by the agent
 * with its own message, after the keys are known to be right (services/gateway/acp/prompt-text.ts).
 */
const contentBlock = z.discriminatedUnion('type', [
  withMeta({ type: z.literal('text'), text: z.string(), annotations }),
  withMeta({ type: z.literal('image'), data: z.string(), mimeType: z.string(), uri: z.string().nullish(), annotations }),
  withMeta({ type: z.literal('audio'), data: z.string(), mimeType: z.string(), annotations }),
  withMeta({
    type: z.literal('resource_link'),
    uri: z.string(),
    name: z.string(),
    title: z.string().nullish(),
    description: z.string().nullish(),
    mimeType: z.string().nullish(),
    size: z.number().int().nullish(),
    annotations,
  }),
  withMeta({ type: z.literal('resource'), resource: resourceContents, annotations }),
]);

export const acpPromptParams = strictRequest(withMeta({ sessionId, prompt: z.array(contentBlock) }));

export const acpCancelParams = strictRequest(withMeta({ sessionId }));

export const acpSetModeParams = strictRequest(withMeta({ sessionId, modeId: z.string() }));

/** A boolean option (`type: "boolean"`) or one of a select option's values (no `type`). */
export const acpSetConfigOptionParams = strictRequest(
  z.discriminatedUnion(
    'type',
    [
      withMeta({ sessionId, configId: z.string(), type: z.literal('boolean'), value: z.boolean() }),
      withMeta({ sessionId, configId: z.string(), type: z.undefined().optional(), value: z.string() }),
    ],
    { error: 'type is "boolean" for a boolean option, and none for a value of a select option' },
  ),
);

/**
 * One line per problem, each naming where it is as a JSON path from `params`:
 * `params.prompt[1].annotations.foo: unrecognized key`. The wording is HTTP's and EDN's
 * (contracts/strict-request.ts); the path is spelt as JSON-RPC clients read their own params.
 */
export function describeAcpParamsIssues(error: z.ZodError): string[] {
  return error.issues.flatMap((issue) => issueLines(issue, []));
}

function issueLines(issue: z.core.$ZodIssue, base: readonly PropertyKey[]): string[] {
  const at = [...base, ...issue.path];
  if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `${jsonPath([...at, key])}: unrecognized key`);
  if (issue.code === 'invalid_union' && issue.errors.length) {
    // No variant fits (an embedded resource that is neither text nor blob): the closest one, with
    // the fewest problems, says what is wrong, rather than zod's bare "Invalid input".
    const closest = issue.errors.reduce((best, next) => (next.length < best.length ? next : best));
    if (closest.length) return closest.flatMap((inner) => issueLines(inner, at));
  }
  return [`${jsonPath(at)}: ${issue.message}`];
}

function jsonPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((at, key) => (typeof key === 'number' ? `${at}[${key}]` : `${at}.${String(key)}`), 'params');
}

// Compile-time: what each schema lets through is a request of the SDK's type (so a handler typed by
// the SDK takes it), and it names every top-level key the SDK's type has, so an SDK upgrade that
// changes a request fails here.
type Fits<Ours extends z.ZodType, Theirs> = [z.output<Ours>] extends [Theirs] ? ([Exclude<keyof Theirs, keyof z.input<Ours>>] extends [never] ? true : false) : false;
type Holds<T extends true> = T;
type _AcpParamsFitTheSdk = [
  Holds<Fits<typeof acpInitializeParams, acp.InitializeRequest>>,
  Holds<Fits<typeof acpAuthenticateParams, acp.AuthenticateRequest>>,
  Holds<Fits<typeof acpNewSessionParams, acp.NewSessionRequest>>,
  Holds<Fits<typeof acpLoadSessionParams, acp.LoadSessionRequest>>,
  Holds<Fits<typeof acpPromptParams, acp.PromptRequest>>,
  Holds<Fits<typeof acpCancelParams, acp.CancelNotification>>,
  Holds<Fits<typeof acpSetModeParams, acp.SetSessionModeRequest>>,
  Holds<Fits<typeof acpSetConfigOptionParams, acp.SetSessionConfigOptionRequest>>,
];
