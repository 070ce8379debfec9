import { createHash } from 'node:crypto';
import type { NatsConnection } from 'nats';
import { natsReplicas } from '../../contracts/nats-replicas';
import type { ContentBlock } from '../../contracts/session-store/messages';

/** A tool call's outcome as the model will read it. */
export interface ToolOutcome {
  content: string;
  is_error: boolean;
  details?: Record<string, unknown>;
  file_changes?: Array<{ path: string; operation: 'write' | 'edit' | 'delete' }>;
  /** The result's content blocks when text alone would lose something (an MCP tool's images); `content` is then their text. */
  blocks?: ContentBlock[];
}

/**
 * Where a tool call's outcome is recorded, by call, the moment the tool finishes and before its
 * activity completes. A retried activity (worker crash, lost completion) finds it and returns it
 * instead of acting twice; the turn then writes the outcomes to the store in call order. Outcomes
 * never travel through workflow history.
 */
export interface ToolLedger {
  get(key: ToolCallKey): Promise<ToolOutcome | undefined>;
  put(key: ToolCallKey, outcome: ToolOutcome): Promise<void>;
}

interface ToolCallKey {
  session_id: string;
  turn_id: string;
  step: number;
  call_id: string;
}

/** KV keys allow few characters; a digest of the call's identity is safe and fixed-length. */
function ledgerKey(k: ToolCallKey): string {
  return createHash('sha256').update(`${k.session_id}\u0000${k.turn_id}\u0000${k.step}\u0000${k.call_id}`).digest('hex');
}

const TOOL_LEDGER_BUCKET = 'strand_tool_results';
/** Long enough for any turn to write its results; short enough not to grow without bound. */
const TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** The ledger on a JetStream key-value bucket (file storage: survives a nats-server restart). */
export async function createKvToolLedger(nc: NatsConnection): Promise<ToolLedger> {
  const kv = await nc.jetstream().views.kv(TOOL_LEDGER_BUCKET, { ttl: TTL_MS, history: 1, replicas: natsReplicas() });
  return {
    async get(key) {
      const entry = await kv.get(ledgerKey(key));
      if (!entry || entry.operation !== 'PUT' || entry.length === 0) return undefined;
      return entry.json<ToolOutcome>();
    },
    async put(key, outcome) {
      await kv.put(ledgerKey(key), JSON.stringify(outcome));
    },
  };
}

/** The same contract in memory, for unit tests of the tool activity. */
export function createMemoryToolLedger(): ToolLedger & { size(): number } {
  const map = new Map<string, ToolOutcome>();
  return {
    async get(key) {
      const v = map.get(ledgerKey(key));
      return v ? structuredClone(v) : undefined;
    },
    async put(key, outcome) {
      map.set(ledgerKey(key), structuredClone(outcome));
    },
    size: () => map.size,
  };
}
