import { statusPayloadSchema, statusProviderSchema, WS_PROTOCOL_VERSION, type StatusPayload } from '../../../contracts/ws-rpc';
import type { RunningTurns } from '../sessions/running-turns';
import type { SessionService } from '../sessions/session-service';
import type { TaskRegistry } from './task-registry';

/** What this server offers beyond the baseline, reported sorted and comma-joined. */
const CAPABILITIES = ['chat.attach', 'error.structured', 'stream.sse', 'task.durable', 'workspace.path'];

/**
 * Clients probe status with a short deadline (the reference client gives up after 1.2 s and then
 * tries to start a server of its own), so counting running turns in Temporal gets this long before
 * the local count stands in.
 */
const TURNS_DEADLINE_MS = 400;

export interface StatusDeps {
  sessions: SessionService;
  turns: RunningTurns;
  tasks: TaskRegistry;
}

async function runningTurns(deps: StatusDeps, principal: string | undefined): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), TURNS_DEADLINE_MS);
  });
  try {
    const counted = await Promise.race([deps.turns.list(principal).then((turns) => turns.length), deadline]);
    return counted ?? deps.tasks.count('running');
  } catch {
    return deps.tasks.count('running');
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `GET /v1/status` and `status.result`. `providers` may only name the providers the reference client
 * knows; every provider a session can use here (with `scripted`) is in `provider_auth` and
 * `strand_providers`. Tasks: running turns (every transport, this principal's), plus chats waiting
 * in this gateway's connection queues.
 */
export async function statusPayload(deps: StatusDeps, principal: string | undefined): Promise<StatusPayload> {
  const usable = deps.sessions.providers();
  const known = new Set<string>(statusProviderSchema.options);
  const running = await runningTurns(deps, principal);
  const queued = deps.tasks.count('queued');
  return statusPayloadSchema.parse({
    ok: true,
    protocol_version: WS_PROTOCOL_VERSION,
    service: 'strand',
    model: deps.sessions.defaultModel,
    providers: usable.filter((p) => known.has(p)),
    provider_auth: usable,
    strand_providers: usable,
    capabilities: [...CAPABILITIES].sort().join(', '),
    tasks_total: running + queued,
    tasks_running: running,
    rpc_queue_length: queued,
  });
}
