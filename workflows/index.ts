// The workflow bundle's entry: every workflow type the worker registers.
export { sessionWorkflow } from './session/session-workflow';
export { turnWorkflow } from './turn/turn-workflow';
export { checkpointListWorkflow } from './checkpoint-list';
export { jobWorkflow } from './job/job-workflow';
export { scheduledJobRun } from './schedule/scheduled-job-run';
