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
  jobStatus: defineSearchAttributeKey(SEARCH_ATTRIBUTES.jobStatus.name, 'KEYWORD'),
  jobProject: defineSearchAttributeKey(SEARCH_ATTRIBUTES.jobProject.name, 'KEYWORD'),
  jobSchedule: defineSearchAttributeKey(SEARCH_ATTRIBUTES.jobSchedule.name, 'KEYWORD'),
};

/** The job workflow's attributes (docs/jobs.md, "Finding jobs"), which it upserts itself as it moves. */
export const JOB_SEARCH_ATTRIBUTE_NAMES = [SEARCH_ATTRIBUTES.jobStatus.name, SEARCH_ATTRIBUTES.jobProject.name, SEARCH_ATTRIBUTES.jobSchedule.name] as const;
