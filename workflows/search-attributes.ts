import * as wf from '@temporalio/workflow';
import { type SearchAttributePair } from '@temporalio/common';
import { searchAttributeKeys } from '../contracts/search-attributes';

/** Typed keys of strand's custom search attributes, shared with the gateway (contracts/search-attributes.ts). */
export const sa = searchAttributeKeys;

/**
 * Whether this run may set strand's search attributes: only when it was started with them (the
 * gateway does, on a server that registered them). A test server without them never sees an upsert
 * it would reject.
 */
function searchAttributesEnabled(): boolean {
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
