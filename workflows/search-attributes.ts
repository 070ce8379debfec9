import * as wf from '@temporalio/workflow';
import { defineSearchAttributeKey, type SearchAttributePair } from '@temporalio/common';
import { SEARCH_ATTRIBUTES } from '../contracts/task-queues';

/** Typed keys of strand's custom search attributes (contracts/task-queues.ts). */
export const sa = {
  sessionId: defineSearchAttributeKey(SEARCH_ATTRIBUTES.sessionId.name, 'KEYWORD'),
  projectPath: defineSearchAttributeKey(SEARCH_ATTRIBUTES.projectPath.name, 'KEYWORD'),
  model: defineSearchAttributeKey(SEARCH_ATTRIBUTES.model.name, 'KEYWORD'),
  phase: defineSearchAttributeKey(SEARCH_ATTRIBUTES.phase.name, 'KEYWORD'),
  owner: defineSearchAttributeKey(SEARCH_ATTRIBUTES.owner.name, 'KEYWORD'),
};

/**
 * Whether this run may set strand's search attributes: only when it was started with them (the
 * gateway does, on a server that registered them). A test server without them never sees an upsert
 * it would reject.
 */
export function searchAttributesEnabled(): boolean {
  return wf.workflowInfo().typedSearchAttributes.get(sa.sessionId) !== undefined;
}

/** Upserts the given attributes when enabled and changed (each upsert is a history event). */
export function upsertIfChanged(pairs: SearchAttributePair[]): void {
  if (!searchAttributesEnabled()) return;
  const current = wf.workflowInfo().typedSearchAttributes;
  const changed = pairs.filter((p) => current.get(p.key) !== p.value);
  if (changed.length > 0) wf.upsertSearchAttributes(changed);
}

/** The attributes a turn child inherits from its session, so jobs can be listed by them. */
export function inheritedSearchAttributes(phase: string): SearchAttributePair[] | undefined {
  if (!searchAttributesEnabled()) return undefined;
  const current = wf.workflowInfo().typedSearchAttributes;
  const pairs: SearchAttributePair[] = [{ key: sa.phase, value: phase }];
  for (const key of [sa.sessionId, sa.projectPath, sa.model, sa.owner]) {
    const value = current.get(key);
    if (value !== undefined) pairs.push({ key, value } as SearchAttributePair);
  }
  return pairs;
}
