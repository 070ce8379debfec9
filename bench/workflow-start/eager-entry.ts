// The workflow entry as it was before each type's module was required at its run's start
// (workflows/index.ts): every run evaluates every workflow's modules. bench:workflow-start's baseline.
export { sessionWorkflow } from '../../workflows/session/session-workflow';
export { turnWorkflow } from '../../workflows/turn/turn-workflow';
export { checkpointListWorkflow } from '../../workflows/checkpoint-list';
export { jobWorkflow } from '../../workflows/job/job-workflow';
