import type { StoreClient } from '../../contracts/session-store/client';
import { jobSessionId } from '../../contracts/job-workflow';
import { JOB_SESSION_METADATA_KEY } from '../../contracts/job-session';
import { RUNTIME_KEYS, SESSION_METADATA_KEYS, type SessionSettings } from '../../contracts/session-settings';
import { spendingOfEntry, tokensOf } from '../../contracts/spending';
import type { StorePort } from '../store/store-port';
import { storeCall } from '../store/store-failures';

export interface JobSessionDeps {
  store: StorePort & Partial<Pick<StoreClient, 'ensure'>>;
}

/** One tool call as the conversation recorded it. */
export interface RecordedToolCall {
  tool_call_id: string;
  tool: string;
  turn: string;
  /** `shell_exec`'s command. */
  command?: string;
  /** `shell_exec`'s exit code; null when it did not exit (killed, refused, cut off). */
  exit_code: number | null;
  is_error: boolean;
  /** Refused, skipped or cut off: the tool never ran. */
  not_run: boolean;
}

export interface JobSessionSummary {
  /** The last assistant message's text. */
  final_answer: string;
  /** How the last assistant message stopped (`function_call`: the step limit came before an answer). */
  last_stop: string | null;
  tool_calls: RecordedToolCall[];
  usage: { cost_usd: number; tokens: number; steps: number };
}

const turnOf = (entryId: string) => entryId.split(':')[0] ?? '';

/**
 * A job's session in the store (docs/jobs.md): created with the workspace as its project so every
 * tool is confined to it, and read back for the report (final answer, tool calls with commands and
 * exit codes, cost and tokens). The turns themselves run as the job workflow's children.
 */
export function createJobSessionActivities(deps: JobSessionDeps) {
  return {
    /** `owner`: the principal who started the job; the session is theirs as a session created through the gateway is (SESSION_METADATA_KEYS.owner). */
    async createJobSession(input: { job_id: string; project_path: string; title: string; settings: SessionSettings; owner?: string }): Promise<{ session_id: string }> {
      const ensure = deps.store.ensure;
      if (!ensure) throw new Error('this worker’s store cannot create sessions');
      const session_id = jobSessionId(input.job_id);
      // `ensure`: a retried activity finds the session the first attempt made.
      await storeCall(`creating the session of job ${input.job_id}`, () =>
        ensure({
          session_id,
          title: input.title,
          description: `job ${input.job_id}`,
          metadata: {
            [SESSION_METADATA_KEYS.projectPath]: input.project_path,
            [RUNTIME_KEYS.settings]: input.settings,
            [JOB_SESSION_METADATA_KEY]: input.job_id,
            ...(input.owner ? { [SESSION_METADATA_KEYS.owner]: input.owner } : {}),
          },
        }),
      );
      return { session_id };
    },

    /** A call's arguments as JSON, cut to `max` characters (for an escalation's notification). */
    async jobToolCallArguments(input: { session_id: string; tool_call_id: string; max?: number }): Promise<string> {
      const max = input.max ?? 2000;
      let cursor: string | undefined;
      do {
        const page = await storeCall(`reading the session ${input.session_id}`, () => deps.store.messages({ session_id: input.session_id, limit: 500, ...(cursor ? { cursor } : {}) }));
        if (!page) break;
        for (const item of page.messages) {
          const m = item.message;
          if (m?.role !== 'assistant') continue;
          for (const b of m.content) {
            if (b.type !== 'function_call' || b.id !== input.tool_call_id) continue;
            const json = JSON.stringify(b.arguments ?? {});
            return json.length > max ? `${json.slice(0, max - 1)}…` : json;
          }
        }
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return '';
    },

    async summarizeJobSession(input: { session_id: string }): Promise<JobSessionSummary> {
      const calls = new Map<string, RecordedToolCall>();
      let final_answer = '';
      let last_stop: string | null = null;
      let cost = 0;
      let tokens = 0;
      let steps = 0;
      let cursor: string | undefined;
      do {
        const page = await storeCall(`reading the session ${input.session_id}`, () => deps.store.messages({ session_id: input.session_id, limit: 500, include_custom: true, ...(cursor ? { cursor } : {}) }));
        if (!page) break;
        for (const item of page.messages) {
          const u = spendingOfEntry(item);
          if (u) {
            cost += u.cost_usd ?? 0;
            tokens += tokensOf(u);
          }
          const m = item.message;
          if (m?.role === 'assistant') {
            steps += 1;
            final_answer = m.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
            last_stop = m.stop_reason ?? null;
            for (const b of m.content) {
              if (b.type !== 'function_call') continue;
              const args = (b.arguments ?? {}) as { command?: unknown };
              calls.set(b.id, { tool_call_id: b.id, tool: b.function_id, turn: turnOf(item.entry_id), ...(typeof args.command === 'string' ? { command: args.command } : {}), exit_code: null, is_error: false, not_run: true });
            }
          } else if (m?.role === 'function_result') {
            const call = calls.get(m.function_call_id);
            if (!call) continue;
            const details = (m.details ?? {}) as { exit_code?: unknown; rejected?: unknown; skipped?: unknown; aborted?: unknown };
            call.is_error = m.is_error === true;
            call.not_run = details.rejected === true || details.skipped === true || details.aborted === true;
            call.exit_code = typeof details.exit_code === 'number' ? details.exit_code : null;
          }
        }
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return { final_answer, last_stop, tool_calls: [...calls.values()], usage: { cost_usd: Math.round(cost * 1e6) / 1e6, tokens, steps } };
    },
  };
}
