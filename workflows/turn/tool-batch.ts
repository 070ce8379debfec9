import * as wf from '@temporalio/workflow';
import type { Activities } from '../../activities';
import type { AgentEvent } from '../../contracts/agent-events';
import { toolCallHandling } from '../../contracts/approval-policy';
import { planModeRefusal } from '../../contracts/plan-mode';
import { TASK_TOOL, subagentRefusal } from '../../contracts/subagent-policy';
import type { SubagentRun } from '../../contracts/subagents';
import type { SessionSettings } from '../../contracts/session-settings';
import { runTask } from '../subagent/run-task';
import type { ApprovalPolicy } from '../../contracts/session-settings';
import { isReadOnlyTool } from '../../contracts/tool-names';
import type { TurnProgress } from '../../contracts/turn-workflow';
import { WORKER_ACTIVITY_HEARTBEAT_TIMEOUT } from '../retry-policies';

/** Patch id (2026-11) of a failed batch waiting for all its calls (allCalls below). */
const BATCH_SETTLES_PATCH = 'tool-batch-settles';

/**
 * Tools run as long as their own timeout allows (shell_exec caps at 30 min); heartbeats on a ticker prove
 * them alive. A tool whose worker died is taken over by another worker's crash watch within a second or
 * two; the heartbeat timeout is the backstop (see the model step's options).
 */
const TOOL_OPTIONS: wf.ActivityOptions = {
  startToCloseTimeout: '35 minutes',
  heartbeatTimeout: WORKER_ACTIVITY_HEARTBEAT_TIMEOUT,
  // A retried tool finds its recorded outcome or knows it was interrupted (run-tool.ts).
  retry: { initialInterval: '200 milliseconds', maximumAttempts: 3 },
  cancellationType: wf.ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
};
const tools = wf.proxyActivities<Activities>(TOOL_OPTIONS);

export interface ToolCall {
  id: string;
  name: string;
  requires_approval: boolean;
  /** A short label for the UI (the path, pattern or command), when the call has one. */
  label?: string;
  /** An MCP tool's read-only annotation (the model step knows it); built-in tools are looked up. */
  read_only?: boolean;
}

export interface Decision {
  approved: boolean;
  reason?: string;
  timed_out?: boolean;
  /** Not answered before the person steered the turn elsewhere: not run. */
  skipped?: boolean;
}

/**
 * One step's tool calls: the approvals they need (durable timer; the policy's default decision when
 * nobody answers), then the approved calls run concurrently as activities. Decisions arrive through
 * `decide` (the turn's approval signal). The caller records the results in call order afterwards,
 * also when the batch is cut short by an abort.
 */
export class ToolBatch {
  readonly decisions = new Map<string, Decision>();
  /**
   * Calls plan mode refuses: never run, never asked about. Decided by the same function, with the same
   * read-only facts (the tool definitions), as the model step's `requires_approval`.
   */
  private readonly refused: ReadonlySet<string>;
  /** A sub-agent's calls of tools it was not given (refused with `subagentRefusal`). */
  private readonly notAllowed: ReadonlySet<string>;

  constructor(
    private readonly ctx: {
      session_id: string;
      project_path: string;
      turn_id: string;
      step: number;
      policy: ApprovalPolicy;
      publish: (events: AgentEvent[]) => Promise<unknown>;
      report: (p: Omit<TurnProgress, 'turn_id' | 'report_id'>) => Promise<void>;
      /** True once a steering message waits: calls still waiting for approval are then skipped. */
      steered: () => boolean;
      /** True once the turn was asked to stop at its next step boundary: running sub-agents are asked too. */
      interrupted?: () => boolean;
      /** The turn's settings: a `task` call's sub-agent runs with them. */
      settings?: SessionSettings;
      /** Set in a sub-agent's turn: only its tools run, and nothing waits for approval (fail closed). */
      subagent?: SubagentRun;
    },
    readonly calls: ToolCall[],
  ) {
    this.refused = new Set(calls.filter((c) => toolCallHandling(ctx.policy, { name: c.name, readOnly: c.read_only ?? isReadOnlyTool(c.name) }) === 'refuse').map((c) => c.id));
    const allowed = ctx.subagent?.tools;
    this.notAllowed = new Set(allowed ? calls.filter((c) => !allowed.includes(c.name)).map((c) => c.id) : []);
    if (this.notAllowed.size > 0) this.refused = new Set([...this.refused, ...this.notAllowed]);
  }

  get step(): number {
    return this.ctx.step;
  }

  get pending(): ToolCall[] {
    return this.calls.filter((c) => c.requires_approval && !this.refused.has(c.id) && !this.decisions.has(c.id));
  }

  /** A person's answer; false when the call is not waiting for one. */
  decide(callId: string, decision: 'approve' | 'reject' | 'always', reason?: string): boolean {
    if (!this.pending.some((c) => c.id === callId)) return false;
    this.decisions.set(callId, { approved: decision !== 'reject', ...(reason ? { reason } : {}) });
    return true;
  }

  async run(): Promise<void> {
    // Nobody can answer a sub-agent's approval (they go to the parent's session): refused at once.
    if (this.ctx.subagent) for (const c of this.pending) this.decisions.set(c.id, { approved: false, reason: 'a sub-agent cannot ask for approval' });
    const waiting = this.pending;
    if (waiting.length > 0) {
      await this.ctx.report({ phase: 'waiting_approval', step: this.ctx.step, details: waiting.map((c) => c.name).join(', '), pending_approvals: waiting.map((c) => ({ tool_call_id: c.id, tool: c.name })) });
      const answered = await wf.condition(() => this.pending.length === 0 || this.ctx.steered(), this.ctx.policy.timeout_s * 1000);
      if (answered) {
        for (const c of this.pending) this.decisions.set(c.id, { approved: false, skipped: true });
      } else {
        for (const c of this.pending) {
          this.decisions.set(c.id, { approved: this.ctx.policy.default_decision === 'approve', timed_out: true, reason: `no answer within ${this.ctx.policy.timeout_s} s` });
        }
      }
      await this.ctx.publish(
        waiting.map((c) => {
          const d = this.decisions.get(c.id)!;
          return { type: 'approval.resolved', tool_call_id: c.id, decision: d.timed_out ? 'timed_out' : d.approved ? 'approved' : 'rejected' };
        }),
      );
    }
    const approved = this.calls.filter((c) => this.approved(c));
    if (approved.length === 0) return;
    await this.ctx.report({ phase: 'tool_execution', step: this.ctx.step, details: approved.map((c) => `${c.name}${c.label ? ` ${c.label}` : ''}`).join(', ') });
    await allCalls(
      approved.map((c) =>
        c.name === TASK_TOOL && !this.ctx.subagent && this.ctx.settings
          ? runTask({ session_id: this.ctx.session_id, project_path: this.ctx.project_path, turn_id: this.ctx.turn_id, step: this.ctx.step, call_id: c.id, settings: this.ctx.settings, interrupted: this.ctx.interrupted })
          : tools.runTool.executeWithOptions({ ...TOOL_OPTIONS, summary: `${c.name}${c.label ? ` ${c.label}` : ''}` }, [
          { session_id: this.ctx.session_id, project_path: this.ctx.project_path, turn_id: this.ctx.turn_id, step: this.ctx.step, call_id: c.id, name: c.name },
        ]),
      ),
    );
  }

  approved(call: ToolCall): boolean {
    if (this.refused.has(call.id)) return false;
    return !call.requires_approval || this.decisions.get(call.id)?.approved === true;
  }

  /** What became of each call, for the store; calls never decided or run count as cut off by `cut`. */
  dispositions(cut: 'aborted' | 'skipped' | undefined) {
    return this.calls.map((c) => {
      if (this.refused.has(c.id)) return { id: c.id, name: c.name, disposition: 'refused' as const, reason: this.notAllowed.has(c.id) ? subagentRefusal(c.name) : planModeRefusal(c.name) };
      const d = this.decisions.get(c.id);
      if (d?.skipped) return { id: c.id, name: c.name, disposition: 'skipped' as const };
      if (c.requires_approval && d && !d.approved) return { id: c.id, name: c.name, disposition: 'rejected' as const, ...(d.reason ? { reason: d.reason } : {}) };
      if (c.requires_approval && !d) return { id: c.id, name: c.name, disposition: cut ?? ('aborted' as const) };
      return { id: c.id, name: c.name, disposition: cut === 'aborted' ? ('aborted' as const) : ('ran' as const) };
    });
  }
}

/**
 * Since `tool-batch-settles`: a batch that fails (an abort cancels every call) ends only once every
 * call has settled, with the first failure. `Promise.all` ended at the first cancelled call, and the
 * turn closed while a sibling sub-agent was still stopping: Temporal terminated that child (its parent
 * close policy) instead of letting it end cancelled. Asked only when a call fails, so histories
 * without a failed batch carry no marker (docs/workflow-versioning.md).
 */
async function allCalls(calls: Promise<unknown>[]): Promise<void> {
  try {
    await Promise.all(calls);
  } catch (first) {
    if (wf.patched(BATCH_SETTLES_PATCH)) await Promise.allSettled(calls);
    throw first;
  }
}
