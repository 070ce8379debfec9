import { defineSearchAttributeKey } from '@temporalio/common';
import { SEARCH_ATTRIBUTES } from '../../../contracts/task-queues';

/** strand's custom search attributes as typed keys, for starting workflows and reading lists. */
export const saKeys = {
  sessionId: defineSearchAttributeKey(SEARCH_ATTRIBUTES.sessionId.name, 'KEYWORD'),
  projectPath: defineSearchAttributeKey(SEARCH_ATTRIBUTES.projectPath.name, 'KEYWORD'),
  model: defineSearchAttributeKey(SEARCH_ATTRIBUTES.model.name, 'KEYWORD'),
  phase: defineSearchAttributeKey(SEARCH_ATTRIBUTES.phase.name, 'KEYWORD'),
  owner: defineSearchAttributeKey(SEARCH_ATTRIBUTES.owner.name, 'KEYWORD'),
};
