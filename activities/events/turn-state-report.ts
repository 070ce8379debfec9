import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import { turnProgressSignal } from '../../contracts/turn-protocol';
import type { TurnProgress } from '../../contracts/turn-workflow';
import type { AgentEventPublisher, OutgoingEvent, PublishedSeqs } from './publisher';

export interface PublishTurnStateInput {
  session_id: string;
  /** The state (and anything published with it), in order. */
  events: OutgoingEvent[];
  /** The report the turn's session keeps its view by: sent once the state is stored. */
  report: { workflow_id: string; progress: TurnProgress };
}

/**
 * A turn's `session.state`, published, then reported to its session from here rather than by a
 * signal from the turn's workflow: a workflow's signal to another workflow costs the sender a
 * workflow task of its own when the server confirms it (two per tool call), while this costs the
 * turn nothing beyond the local activity that publishes the state anyway. Awaited, so the session
 * has the report before the turn goes on, and reports arrive in the order the turn made them (a
 * retry re-sends the same report). A session that is gone changes nothing.
 */
export function createPublishTurnState(events: AgentEventPublisher) {
  return async function publishTurnState(input: PublishTurnStateInput): Promise<PublishedSeqs> {
    const seqs = (await events.publish(input.session_id, input.events)) ?? {};
    try {
      await Context.current().client.workflow.getHandle(input.report.workflow_id).signal(turnProgressSignal, input.report.progress);
    } catch (err) {
      if (!(err instanceof WorkflowNotFoundError)) throw err;
    }
    return seqs;
  };
}
