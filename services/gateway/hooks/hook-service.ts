import { createHash, randomUUID } from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import {
  DELIVERY_ID_HEADERS,
  HOOK_COORDINATOR_WORKFLOW_TYPE,
  hookCoordinatorId,
  hookDeliveryUpdate,
  SIGNATURE_HEADERS,
  type HookCoordinatorInput,
  type HookDefinition,
  type HookDefinitionBody,
  type HookDelivery,
  type HookDeliveryRecord,
  type HookDeliveryReply,
} from '../../../contracts/job-hook';
import { hookSignatureMatches } from '../../../contracts/job-hook-signature';
import type { JobSpec } from '../../../contracts/job-spec';
import { sendCommand } from '../temporal/patient-update';
import { connectedClient, type TemporalLink } from '../temporal/temporal-link';
import { translateFailure } from '../temporal/translate-failure';
import type { HookStore } from './hook-store';
import { checkDefinition, fillTemplate, valuesFrom } from './hook-template';

const MAX_DELIVERY_ID = 200;
const MAX_KEY = 200;

export interface HookServiceDeps {
  store: HookStore;
  temporal: TemporalLink;
  taskQueue: string;
  /** Where `secret_env` is looked up: the gateway's environment. */
  env: NodeJS.ProcessEnv;
  log: { warn: (obj: object, msg: string) => void };
  now?: () => Date;
}

/** What a delivery is answered: 202 when recorded for the first time, 200 for a delivery id already answered. */
export interface DeliveryAnswer {
  status: 200 | 202;
  reply: HookDeliveryReply;
}

/** The job a delivery starts: derived from the hook and the delivery id, so every gateway derives the same one. */
function hookJobId(hook: string, deliveryId: string): string {
  return `hook-${hook}-${createHash('sha256').update(`${hook}\n${deliveryId}`).digest('hex').slice(0, 12)}`;
}

/**
 * Hooks (docs/jobs.md, "Triggers"): definitions in the shared store, and deliveries checked (the
 * signature under the secret the definition's `secret_env` names), filled into a job spec and handed
 * to the (hook, key)'s coordinator workflow, which owns deduplication and the supersede rule. The
 * gateway decides nothing about order or duplicates: it answers what the coordinator recorded.
 */
export class HookService {
  constructor(private readonly deps: HookServiceDeps) {}

  private now(): string {
    return (this.deps.now?.() ?? new Date()).toISOString();
  }

  async define(name: string, body: HookDefinitionBody): Promise<HookDefinition> {
    checkDefinition(body);
    if (!this.deps.env[body.secret_env]) {
      throw new StrandError(ErrorCode.INVALID_REQUEST, `the environment variable ${body.secret_env} is not set on this gateway: set it (to the hook's secret) on every gateway before defining the hook`);
    }
    const before = await this.deps.store.get(name);
    const at = this.now();
    const def: HookDefinition = { ...body, name, created_at: before?.created_at ?? at, updated_at: at };
    await this.deps.store.put(def);
    return def;
  }

  list(): Promise<HookDefinition[]> {
    return this.deps.store.list();
  }

  async show(name: string): Promise<{ hook: HookDefinition; deliveries: HookDeliveryRecord[] }> {
    const hook = await this.definition(name);
    return { hook, deliveries: await this.deps.store.deliveries(name) };
  }

  async remove(name: string): Promise<{ deleted: true }> {
    if (!(await this.deps.store.delete(name))) throw notFound(name);
    return { deleted: true };
  }

  private async definition(name: string): Promise<HookDefinition> {
    const def = await this.deps.store.get(name);
    if (!def) throw notFound(name);
    return def;
  }

  /** One delivery: `raw` is the body as received (the signature is over its bytes), `header` reads a request header. */
  async deliver(name: string, raw: Uint8Array, header: (name: string) => string | undefined): Promise<DeliveryAnswer> {
    const def = await this.definition(name);
    const secret = this.deps.env[def.secret_env];
    if (!secret) {
      this.deps.log.warn({ hook: name, secret_env: def.secret_env }, 'a hook delivery arrived, but the environment variable with its secret is not set on this gateway');
      throw new StrandError(ErrorCode.UNAVAILABLE, `this gateway holds no secret for hook ${name}; its operator must set the environment variable the hook names`);
    }
    const signatureHeader = SIGNATURE_HEADERS.find((h) => header(h) !== undefined);
    if (!signatureHeader) throw new StrandError(ErrorCode.UNAUTHORIZED, 'the delivery is not signed: send X-Strand-Signature: sha256=<hex HMAC-SHA256 of the raw body under the hook\'s secret> (or GitHub\'s X-Hub-Signature-256)');
    if (!hookSignatureMatches(secret, raw, header(signatureHeader))) throw new StrandError(ErrorCode.UNAUTHORIZED, `the ${signatureHeader} signature does not match the body under hook ${name}'s secret`);
    const delivery_id = DELIVERY_ID_HEADERS.map((h) => header(h)?.trim()).find((v) => v);
    if (!delivery_id || delivery_id.length > MAX_DELIVERY_ID) throw new StrandError(ErrorCode.INVALID_REQUEST, `a delivery needs an id of 1-${MAX_DELIVERY_ID} characters in X-Strand-Delivery (or X-GitHub-Delivery, X-Gitea-Delivery)`);
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder().decode(raw));
    } catch {
      throw new StrandError(ErrorCode.INVALID_REQUEST, 'the delivery body is not JSON');
    }
    let key: string | null = null;
    let spec: JobSpec;
    try {
      const values = valuesFrom(body, def.values);
      key = def.key === undefined ? null : values[def.key]!;
      if (key !== null && (key.length === 0 || key.length > MAX_KEY)) throw new StrandError(ErrorCode.HOOK_DELIVERY_REJECTED, `the key \${${def.key}} must be 1-${MAX_KEY} characters`, { placeholder: def.key });
      spec = fillTemplate(def.template, values);
    } catch (err) {
      if (err instanceof StrandError) await this.log(name, { delivery_id, at: this.now(), outcome: 'rejected', job_id: null, key, reason: err.message });
      throw err;
    }
    const reply = await this.coordinate(name, key, { delivery_id, job_id: hookJobId(name, delivery_id), spec, mode: def.key === undefined ? 'parallel' : def.supersede });
    await this.log(name, { ...reply, at: this.now(), key });
    return { status: reply.outcome === 'duplicate' ? 200 : 202, reply };
  }

  /** The delivery handed to its coordinator, started if need be; one update id per request (a repeat is answered by the coordinator's record). */
  private async coordinate(hook: string, key: string | null, delivery: HookDelivery): Promise<HookDeliveryReply> {
    const client = connectedClient(this.deps.temporal);
    const input: HookCoordinatorInput = { hook, key };
    const updateId = randomUUID();
    const startWorkflowOperation = () =>
      new WithStartWorkflowOperation(HOOK_COORDINATOR_WORKFLOW_TYPE, {
        workflowId: hookCoordinatorId(hook, key),
        taskQueue: this.deps.taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
        staticSummary: `hook ${hook}${key === null ? '' : ` · ${key}`}`,
      });
    try {
      // As a session command (session-commands.ts): sent again under its update id for up to a minute.
      return await sendCommand(this.deps.temporal, updateId, () => client.workflow.executeUpdateWithStart(hookDeliveryUpdate, { args: [delivery], updateId, startWorkflowOperation: startWorkflowOperation() }));
    } catch (err) {
      throw translateFailure(err);
    }
  }

  /** The delivery log is for people: a failure to write it is logged, never the delivery's failure. */
  private async log(name: string, record: HookDeliveryRecord): Promise<void> {
    try {
      await this.deps.store.record(name, record);
    } catch (err) {
      this.deps.log.warn({ hook: name, delivery_id: record.delivery_id, err: (err as Error).message }, 'could not record a hook delivery in its log');
    }
  }
}

function notFound(name: string): StrandError {
  return new StrandError(ErrorCode.HOOK_NOT_FOUND, `no hook named ${name}`);
}
