import * as wf from '@temporalio/workflow';
import type { AgentPhase } from '../../contracts/agent-phase';

/** The running turn's last report, as the watchdog sees it. */
export interface TurnPulse {
  /** Counts the turn's reports: any change is progress. */
  seq: number;
  phase: AgentPhase;
  step: number;
  details?: string;
}

/** Phases in which silence is expected: a person, the budget or a scheduled provider retry is waited for. */
const WAITING: ReadonlySet<AgentPhase> = new Set(['waiting_approval', 'waiting_budget', 'retrying']);

/** Why a stalled turn stalled, in the report's words. */
export function stallDiagnosis(pulse: TurnPulse, turnId: string, stallS: number): string {
  const where = `no progress for ${stallS} s in step ${pulse.step + 1} of turn ${turnId}`;
  if (pulse.phase === 'tool_execution') return `${where}: ${pulse.details ? `tool ${pulse.details}` : 'a tool'} did not return`;
  if (pulse.phase === 'compacting') return `${where}: the compaction stalled`;
  if (pulse.phase === 'thinking') return `${where}: the model stream stalled`;
  return `${where}: the turn stalled (${pulse.phase})`;
}

/**
 * The job's watchdog over one running turn (docs/jobs.md, "Watchdog"): resolves with the pulse it
 * last saw when the turn reported nothing for `stallMs` while not waiting on purpose, or with
 * undefined once `over()` holds. A durable timer per report, so it counts workflow time (a worker's
 * restart does not reset it) and a stalled turn is noticed even when no worker runs its step.
 */
export async function watchTurn(pulse: () => TurnPulse, over: () => boolean, stallMs: number): Promise<TurnPulse | undefined> {
  while (!over()) {
    const seen = pulse();
    const moved = () => over() || pulse().seq !== seen.seq;
    if (WAITING.has(seen.phase)) await wf.condition(moved);
    else if (!(await wf.condition(moved, stallMs))) return seen;
  }
  return undefined;
}
