import { defineSearchAttributeKey } from '@temporalio/common';
import { SEARCH_ATTRIBUTES } from './task-queues';

/**
 * strand's custom search attributes as typed keys: the one definition the session and turn
 * workflows upsert with and the gateway starts workflows and reads visibility lists with, so a key's
 * name or type can never differ between the side that writes it and the side that reads it.
 */
export const searchAttributeKeys = {
  sessionId: defineSearchAttributeKey(SEARCH_ATTRIBUTES.sessionId.name, 'KEYWORD'),
  projectPath: defineSearchAttributeKey(SEARCH_ATTRIBUTES.projectPath.name, 'KEYWORD'),
  model: defineSearchAttributeKey(SEARCH_ATTRIBUTES.model.name, 'KEYWORD'),
  phase: defineSearchAttributeKey(SEARCH_ATTRIBUTES.phase.name, 'KEYWORD'),
  owner: defineSearchAttributeKey(SEARCH_ATTRIBUTES.owner.name, 'KEYWORD'),
};
