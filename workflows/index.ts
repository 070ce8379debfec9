/* eslint-disable @typescript-eslint/no-require-imports -- see below */
import type * as Session from './session/session-workflow';
import type * as Turn from './turn/turn-workflow';
import type * as CheckpointList from './checkpoint-list';
import type * as Job from './job/job-workflow';
import type * as ScheduledJobRun from './schedule/scheduled-job-run';
import type * as JobAftercare from './job/job-aftercare';
import type * as HookCoordinator from './hook/hook-coordinator';

// The workflow bundle's entry: every workflow type the worker registers.
//
// Each workflow run evaluates the bundle's modules afresh (only preloaded ones are shared), and every
// prompt is a new turn run: a module the turn never uses still costs its evaluation on the path to the
// first delta (the job spec's schemas alone cost more than the turn's own). So each type is required
// when a run of it starts: a run evaluates its own workflow's module graph only. Requiring is
// deterministic (module evaluation is code like any other); the names stay the workflow types.
export function sessionWorkflow(...args: Parameters<typeof Session.sessionWorkflow>): ReturnType<typeof Session.sessionWorkflow> {
  return (require('./session/session-workflow') as typeof Session).sessionWorkflow(...args);
}
export function turnWorkflow(...args: Parameters<typeof Turn.turnWorkflow>): ReturnType<typeof Turn.turnWorkflow> {
  return (require('./turn/turn-workflow') as typeof Turn).turnWorkflow(...args);
}
export function checkpointListWorkflow(...args: Parameters<typeof CheckpointList.checkpointListWorkflow>): ReturnType<typeof CheckpointList.checkpointListWorkflow> {
  return (require('./checkpoint-list') as typeof CheckpointList).checkpointListWorkflow(...args);
}
export function jobWorkflow(...args: Parameters<typeof Job.jobWorkflow>): ReturnType<typeof Job.jobWorkflow> {
  return (require('./job/job-workflow') as typeof Job).jobWorkflow(...args);
}
export function hookCoordinatorWorkflow(...args: Parameters<typeof HookCoordinator.hookCoordinatorWorkflow>): ReturnType<typeof HookCoordinator.hookCoordinatorWorkflow> {
  return (require('./hook/hook-coordinator') as typeof HookCoordinator).hookCoordinatorWorkflow(...args);
}
export function jobAftercareWorkflow(...args: Parameters<typeof JobAftercare.jobAftercareWorkflow>): ReturnType<typeof JobAftercare.jobAftercareWorkflow> {
  return (require('./job/job-aftercare') as typeof JobAftercare).jobAftercareWorkflow(...args);
}
export function scheduledJobRun(...args: Parameters<typeof ScheduledJobRun.scheduledJobRun>): ReturnType<typeof ScheduledJobRun.scheduledJobRun> {
  return (require('./schedule/scheduled-job-run') as typeof ScheduledJobRun).scheduledJobRun(...args);
}
