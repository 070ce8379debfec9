import type { AgentEventPublisher, OutgoingEvent } from '../../activities/events/publisher';
import { providerFailureKinds } from '../../contracts/failures';
import { withoutLogFields } from '../common/tracing-log-context';
import { activityScope, type ActivityScope } from './activity-telemetry';
import type { RecentFailures } from './recent-failures';
import type { WorkerMetrics } from './worker-metrics';

const RETRY_KINDS = new Set<string>([...providerFailureKinds, 'infrastructure']);
const OUTPUT_EVENTS = new Set(['assistant.delta', 'assistant.thinking_delta', 'tool.call']);

/**
 * The worker's event publisher, measuring what the stored events say once JetStream has them: a model
 * step's first output (and, for a turn's first step, the turn's first-delta latency), retries the turn
 * scheduled, approvals asked and answered. Counted by the activity attempt that published them and
 * only on its first try, so an attempt retried after a crash (which publishes the same events again,
 * dropped by JetStream as duplicates) does not count them twice. `error` events also go into the
 * worker's ring of recent failures (recent-failures.ts), which its telemetry snapshots carry.
 */
export function observedPublisher(inner: AgentEventPublisher, metrics: WorkerMetrics, now: () => number = Date.now, failures?: RecentFailures): AgentEventPublisher {
  return {
    async publish(sessionId: string, events: OutgoingEvent[]) {
      const scope = activityScope.getStore();
      // Outside the activity's log context: the outbox's pump that this may start serves every activity.
      const stored = await withoutLogFields(() => inner.publish(sessionId, events));
      if (scope) for (const item of events) observe(scope, item);
      // Every attempt: the ring keeps an event once by its id, and a failure must not be missed because
      // the attempt that first stored it died before it could count it.
      if (failures) for (const item of events) failures.observe(sessionId, item, now());
      return stored;
    },
  };

  function observe(scope: ActivityScope, { event }: OutgoingEvent): void {
    if (OUTPUT_EVENTS.has(event.type) && scope.activity === 'streamModelStep' && !scope.outputSeen) {
      scope.outputSeen = true;
      const at = now();
      metrics.stepFirstOutput.observe({ provider: scope.provider ?? 'unknown' }, (at - scope.startedAt) / 1000);
      if (scope.turnFirstStep && scope.turnStartedMs !== undefined) metrics.firstDelta.observe(Math.max(0, at - scope.turnStartedMs) / 1000);
      return;
    }
    if (scope.attempt > 1) return;
    if (event.type === 'retry.scheduled') metrics.retries.inc({ kind: event.kind && RETRY_KINDS.has(event.kind) ? event.kind : 'other' });
    else if (event.type === 'approval.requested') metrics.approvalsRequested.inc();
    else if (event.type === 'approval.resolved') metrics.approvalsResolved.inc({ decision: event.decision });
  }
}
