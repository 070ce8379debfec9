/**
 * The event topics of docs/edn.md and a connection's subscription to them. `subscribe` adds,
 * `unsubscribe` removes; unknown topics are dropped; an empty set means every topic flows (so a
 * client that never subscribes sees everything, and `unsubscribe` of all topics lets all flow again,
 * as psi does).
 */
const EDN_TOPICS: ReadonlySet<string> = new Set([
  'session/updated',
  'session/resumed',
  'session/rehydrated',
  'context/updated',
  'assistant/delta',
  'assistant/thinking-delta',
  'assistant/message',
  'tool/start',
  'tool/executing',
  'tool/delta',
  'tool/update',
  'tool/result',
  'ui/dialog-requested',
  'ui/frontend-action-requested',
  'ui/widgets-updated',
  'ui/widget-specs-updated',
  'ui/status-updated',
  'ui/notification',
  'footer/updated',
  'command-result',
  'error',
]);

export class TopicSubscription {
  private readonly topics = new Set<string>();

  /** Adds the known topics among `names`; returns the subscription, sorted. */
  add(names: readonly string[]): string[] {
    for (const n of names) if (EDN_TOPICS.has(n)) this.topics.add(n);
    return this.list();
  }

  /** Removes `names`; with none given, clears the set (every topic flows again). */
  remove(names: readonly string[] | undefined): string[] {
    if (!names || names.length === 0) this.topics.clear();
    else for (const n of names) this.topics.delete(n);
    return this.list();
  }

  wants(topic: string): boolean {
    return this.topics.size === 0 || this.topics.has(topic);
  }

  list(): string[] {
    return [...this.topics].sort();
  }
}
