import type { StoreClient } from '../../contracts/session-store/client';
import { RUNTIME_KEYS, SESSION_METADATA_KEYS, type SessionSettings } from '../../contracts/session-settings';
import { SUBAGENT_METADATA_KEYS, SUBAGENT_TOOLS, subagentMaxStepsFromEnv, subagentSessionId, taskParamsSchema } from '../../contracts/subagents';
import { entryIds } from '../../contracts/workflow-ids';
import type { AgentEventPublisher } from '../events/publisher';
import type { StorePort } from '../store/store-port';
import { storeCall } from '../store/store-failures';
import type { ToolLedger, ToolOutcome } from '../tool-calls/ledger';
import { summaryOf } from '../tool-calls/run-tool';

/** Where a `task` call is: the parent session, turn and step, and the call. */
export interface TaskCallRef {
  session_id: string;
  turn_id: string;
  step: number;
  call_id: string;
}

export interface StartSubagentInput extends TaskCallRef {
  project_path: string;
  /** The parent turn's settings: the sub-session records them (model, thinking level). */
  settings: SessionSettings;
}

export type StartSubagentResult =
  | { started: true; session_id: string; prompt: string; description: string; max_steps: number; tools: string[] }
  /** The call cannot run (bad parameters): its outcome is recorded and announced already. */
  | { started: false };

export interface FinishSubagentInput extends TaskCallRef {
  sub_session_id: string;
  outcome: 'done' | 'error' | 'aborted';
  steps: number;
  /** Why the child workflow failed, when it did not even return an outcome. */
  failure?: string;
  /** The parent's interrupt reached it: it stopped at a step boundary. */
  interrupted?: boolean;
}

export interface SubagentDeps {
  store: StorePort & Partial<Pick<StoreClient, 'ensure'>>;
  events: AgentEventPublisher;
  ledger: ToolLedger;
  env?: Record<string, string | undefined>;
}

/**
 * The `task` tool's activities (docs/subagents.md). The child turn itself is a workflow; these do
 * what needs I/O around it: read the call's arguments from the stored assistant message (they never
 * pass through the parent's history), create the sub-session linked to its parent, and, once the
 * child is done, turn its final answer into the call's outcome in the ledger (as a tool activity
 * would) with the child's usage, so the parent records it like any tool result.
 */
export function createSubagentActivities(deps: SubagentDeps) {
  const maxSteps = subagentMaxStepsFromEnv(deps.env ?? process.env);

  async function announce(ref: TaskCallRef, outcome: ToolOutcome, usage?: UsageSum) {
    const tag = `${entryIds.tool(ref.turn_id, ref.step, ref.call_id)}:task`;
    await deps.events.publish(ref.session_id, [
      {
        id: `${tag}:result`,
        turn_id: ref.turn_id,
        event: { type: 'tool.result', tool_call_id: ref.call_id, status: outcome.is_error ? 'error' : 'success', is_error: outcome.is_error, summary: summaryOf('task', outcome), result: outcome.content },
      },
      // The sub-agent's spend counts in the parent's totals: its own usage events are marked as the sub-agent's.
      ...(usage ? [{ id: `${tag}:usage`, turn_id: ref.turn_id, event: { type: 'usage' as const, ...usage } }] : []),
    ]);
  }

  async function record(ref: TaskCallRef, outcome: ToolOutcome, usage?: UsageSum) {
    await deps.ledger.put({ session_id: ref.session_id, turn_id: ref.turn_id, step: ref.step, call_id: ref.call_id }, outcome);
    await announce(ref, outcome, usage);
  }

  return {
    async startSubagent(input: StartSubagentInput): Promise<StartSubagentResult> {
      const recorded = await deps.ledger.get({ session_id: input.session_id, turn_id: input.turn_id, step: input.step, call_id: input.call_id });
      if (recorded) return { started: false };
      const parsed = taskParamsSchema.safeParse(await argumentsOf(deps.store, input));
      if (!parsed.success) {
        await record(input, { content: `Invalid parameters for task: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'params'}: ${i.message}`).join('; ')}`, is_error: true, details: { invalid_params: true } });
        return { started: false };
      }
      if (!deps.store.ensure) throw new Error('this worker’s store cannot create sub-sessions');
      const parent = await storeCall(`reading session ${input.session_id}`, () => deps.store.get({ session_id: input.session_id }));
      const owner = parent?.meta.metadata?.[SESSION_METADATA_KEYS.owner];
      const session_id = subagentSessionId(input.session_id, input.turn_id, input.call_id);
      const ensure = deps.store.ensure;
      await storeCall(`creating the sub-session of ${input.call_id}`, () =>
        ensure({
          session_id,
          title: parsed.data.description,
          description: `task of ${input.session_id} (${input.turn_id}, ${input.call_id})`,
          metadata: {
            [SESSION_METADATA_KEYS.projectPath]: input.project_path,
            [RUNTIME_KEYS.settings]: input.settings,
            ...(typeof owner === 'string' ? { [SESSION_METADATA_KEYS.owner]: owner } : {}),
            [SUBAGENT_METADATA_KEYS.parentSession]: input.session_id,
            [SUBAGENT_METADATA_KEYS.parentTurn]: input.turn_id,
            [SUBAGENT_METADATA_KEYS.parentToolCall]: input.call_id,
          },
        }),
      );
      await deps.events.publish(input.session_id, [
        { id: `${entryIds.tool(input.turn_id, input.step, input.call_id)}:executing`, turn_id: input.turn_id, event: { type: 'tool.executing', tool_call_id: input.call_id } },
      ]);
      return { started: true, session_id, prompt: parsed.data.prompt, description: parsed.data.description, max_steps: maxSteps, tools: [...SUBAGENT_TOOLS] };
    },

    async finishSubagent(input: FinishSubagentInput): Promise<{ is_error: boolean }> {
      const recorded = await deps.ledger.get({ session_id: input.session_id, turn_id: input.turn_id, step: input.step, call_id: input.call_id });
      if (recorded) return { is_error: recorded.is_error };
      const { answer, usage, lastStop } = await readChild(deps.store, input.sub_session_id);
      const details = { subagent: { session_id: input.sub_session_id, outcome: input.outcome, steps: input.steps, usage } };
      let outcome: ToolOutcome;
      if (input.outcome === 'done' && answer.trim() !== '' && lastStop !== 'function_call') {
        outcome = { content: answer, is_error: false, details };
      } else if (input.outcome === 'done' && input.interrupted) {
        outcome = { content: `The sub-agent was interrupted (the turn was asked to stop) after ${input.steps} steps, before its final answer.${answer.trim() ? ` Its last words:\n${answer}` : ''}`, is_error: true, details };
      } else if (input.outcome === 'done') {
        outcome = { content: `The sub-agent stopped after ${input.steps} steps without a final answer.${answer.trim() ? ` Its last words:\n${answer}` : ''}`, is_error: true, details };
      } else {
        const why = input.failure ?? (input.outcome === 'aborted' ? 'it was aborted' : 'it failed (see the sub-session for the error)');
        outcome = { content: `The sub-agent did not finish: ${why}.${answer.trim() ? ` Its last words:\n${answer}` : ''}`, is_error: true, details };
      }
      await record(input, outcome, usage);
      return { is_error: outcome.is_error };
    },
  };
}

type UsageSum = { input: number; output: number; cache_read: number; cache_write: number; cost_usd: number };

/** The sub-session's last assistant text, how its last step stopped, and everything its steps cost. */
async function readChild(store: StorePort, sessionId: string) {
  const usage: UsageSum = { input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: 0 };
  let answer = '';
  let lastStop: string | undefined;
  let cursor: string | undefined;
  do {
    const page = await storeCall(`reading the sub-session ${sessionId}`, () => store.messages({ session_id: sessionId, limit: 500, ...(cursor ? { cursor } : {}) }));
    if (!page) break;
    for (const item of page.messages) {
      const m = item.message;
      if (m?.role !== 'assistant') continue;
      answer = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      lastStop = m.stop_reason;
      for (const k of ['input', 'output', 'cache_read', 'cache_write', 'cost_usd'] as const) usage[k] += m.usage?.[k] ?? 0;
    }
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  usage.cost_usd = Math.round(usage.cost_usd * 1e6) / 1e6;
  return { answer, usage, lastStop };
}

async function argumentsOf(store: StorePort, ref: TaskCallRef): Promise<unknown> {
  const got = await storeCall(`reading the task call ${ref.call_id}`, () => store.getMessage({ session_id: ref.session_id, entry_id: entryIds.assistant(ref.turn_id, ref.step) }));
  const message = got?.entry.kind === 'message' ? got.entry.message : undefined;
  const call = message?.role === 'assistant' ? message.content.find((b) => b.type === 'function_call' && b.id === ref.call_id) : undefined;
  return call && call.type === 'function_call' ? (call.arguments ?? {}) : {};
}
