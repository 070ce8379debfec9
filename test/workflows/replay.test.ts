import '../harness/quiet-temporal';
import { temporal } from '@temporalio/proto';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import fs from 'node:fs';
import path from 'node:path';
import { loadWorkflowBundle } from '../../services/worker/workflow-bundle';
import { recordedWorkflowId } from './fixtures/recorded-workflow-id';

/**
 * Replays recorded histories (fixtures/histories, written by fixtures/record-histories.ts) against the
 * workflow code as it is now. A change that would make a running session or turn fail on the next
 * worker (a command added, removed or reordered without `patched()`) fails here, before it ships:
 * docs/workflow-versioning.md says what to do then.
 */
const DIR = path.join(__dirname, 'fixtures', 'histories');
let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  // Through the worker's on-disk cache (rebuilt whenever a file of the bundle changed): no webpack run per file.
  bundle = await loadWorkflowBundle();
}, 120_000);

/** A recorded history file, read back into the History the replayer takes. */
function loadHistory(file: string): temporal.api.history.v1.History {
  return temporal.api.history.v1.History.fromObject(JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8')));
}

test('every recorded session and turn history replays on the current workflow code', async () => {
  const files = fs.readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
  // Older sets: `pre-22.*` recorded on the code before issue 22 (6e39041), `acks.*` on turns that waited
  // for the session to publish their state (cd426a9), `marker.*` on turns that asked patched() for the
  // thinking report (aacac4e), `patch.*` on sessions that asked patched() whether turns publish their
  // state (0681e48), `pre-intents.*` on sessions whose abort, interrupt and steer found no child yet
  // (before `turn-command-intents`): what was running when each change shipped. `view.*` were recorded
  // on sessions that keep their view in their memo (`session-view-memo`), the unprefixed ones before it;
  // `ordered.*` on workflows that run their local activities one at a time (`local-activities-in-order`);
  // `settled.*` on sessions that upsert their view once in the task that starts a turn (`session-view-memo-settled`).
  // `pre-host.*` are jobs (record-job-histories.ts) recorded before a job's work was routed to the host
  // of its workspace, before `needs_human` could be resumed and before jobs published their turns' states;
  // `stream.*` are jobs that announce their turns on their session's stream (`job-turns-on-session-stream`).
  // `untold.*` are sessions that did not publish their state when a prompt was queued (before
  // `queued-prompt-told`; the unprefixed ones of those scenarios are recorded after it).
  // `announce.*` on sessions whose turns announce their own start (`turns_announce_start`) and run their
  // local activities in order on their input's word (`local_activities_in_order`) and report from the
  // activity that publishes their state (`reports_by_activity`).
  expect(files).toEqual([
    'abort-running.session.json',
    'abort-running.turn-1.json',
    'acks.manual-compaction.session.json',
    'acks.turn-with-tool.session.json',
    'acks.turn-with-tool.turn-1.json',
    'acks.two-turns.session.json',
    'announce.queued-turn-commands.session.json',
    'announce.queued-turn-commands.turn-1.json',
    'announce.queued-turn-commands.turn-3.json',
    'announce.second-turn-with-tool.session.json',
    'announce.second-turn-with-tool.turn-2.json',
    'announce.turn-continue-as-new.session.run-1.json',
    'announce.turn-continue-as-new.session.run-2.json',
    'announce.turn-continue-as-new.turn-1.run-1.json',
    'announce.turn-continue-as-new.turn-1.run-2.json',
    'announce.turn-continue-as-new.turn-1.run-3.json',
    'announce.two-turns.session.json',
    'budget-wait.session.json',
    'budget-wait.turn-1.json',
    'clear-queue-during-compaction.session.json',
    'images-and-task.session.json',
    'images-and-task.turn-1.json',
    'interrupt-running.session.json',
    'interrupt-running.turn-1.json',
    'manual-compaction.session.json',
    'marker.manual-compaction.session.json',
    'marker.settings-during-approval.session.json',
    'marker.settings-during-approval.turn-1.json',
    'marker.turn-with-tool.session.json',
    'marker.turn-with-tool.turn-1.json',
    'marker.two-turns.session.json',
    'ordered.abort-running.session.json',
    'ordered.abort-running.turn-1.json',
    'ordered.queued-turn-commands.session.json',
    'ordered.queued-turn-commands.turn-1.json',
    'ordered.queued-turn-commands.turn-3.json',
    'ordered.settings-during-approval.session.json',
    'ordered.settings-during-approval.turn-1.json',
    'ordered.subagent-interrupt.session.json',
    'ordered.subagent-interrupt.turn-1.json',
    'ordered.subagent-interrupt.turn-call-1.json',
    'ordered.two-turns.session.json',
    'patch.manual-compaction.session.json',
    'patch.settings-during-approval.session.json',
    'patch.settings-during-approval.turn-1.json',
    'patch.turn-with-tool.session.json',
    'patch.turn-with-tool.turn-1.json',
    'patch.two-turns.session.json',
    'pre-22.turn-with-tool.session.json',
    'pre-22.turn-with-tool.turn-1.json',
    'pre-host.job-needs-human.job.json',
    'pre-host.job-needs-human.turn-1.json',
    'pre-host.job-ok.job.json',
    'pre-host.job-ok.turn-1.json',
    'pre-intents.abort-running.session.json',
    'pre-intents.abort-running.turn-1.json',
    'pre-intents.budget-wait.session.json',
    'pre-intents.budget-wait.turn-1.json',
    'pre-intents.clear-queue-during-compaction.session.json',
    'pre-intents.images-and-task.session.json',
    'pre-intents.images-and-task.turn-1.json',
    'pre-intents.interrupt-running.session.json',
    'pre-intents.interrupt-running.turn-1.json',
    'pre-intents.revert.session.json',
    'pre-intents.steer-running.session.json',
    'pre-intents.steer-running.turn-1.json',
    'pre-intents.subagent-interrupt.session.json',
    'pre-intents.subagent-interrupt.turn-1.json',
    'pre-intents.subagent-interrupt.turn-call-1.json',
    'pre-intents.turn-continue-as-new.session.run-1.json',
    'pre-intents.turn-continue-as-new.session.run-2.json',
    'pre-intents.turn-continue-as-new.turn-1.run-1.json',
    'pre-intents.turn-continue-as-new.turn-1.run-2.json',
    'pre-intents.turn-continue-as-new.turn-1.run-5.json',
    'queued-turn-commands.session.json',
    'queued-turn-commands.turn-1.json',
    'queued-turn-commands.turn-3.json',
    'revert.session.json',
    'settings-during-approval.session.json',
    'settings-during-approval.turn-1.json',
    'settled.queued-turn-commands.session.json',
    'settled.queued-turn-commands.turn-1.json',
    'settled.queued-turn-commands.turn-3.json',
    'settled.turn-continue-as-new.session.run-1.json',
    'settled.turn-continue-as-new.session.run-2.json',
    'settled.turn-continue-as-new.turn-1.run-1.json',
    'settled.turn-continue-as-new.turn-1.run-2.json',
    'settled.turn-continue-as-new.turn-1.run-5.json',
    'settled.two-turns.session.json',
    'steer-running.session.json',
    'steer-running.turn-1.json',
    'stream.job-needs-human.job.json',
    'stream.job-needs-human.turn-1.json',
    'stream.job-ok.job.json',
    'stream.job-ok.turn-1.json',
    'subagent-interrupt.session.json',
    'subagent-interrupt.turn-1.json',
    'subagent-interrupt.turn-call-1.json',
    'turn-continue-as-new.session.run-1.json',
    'turn-continue-as-new.session.run-2.json',
    'turn-continue-as-new.turn-1.run-1.json',
    'turn-continue-as-new.turn-1.run-2.json',
    'turn-continue-as-new.turn-1.run-5.json',
    'turn-with-tool.session.json',
    'turn-with-tool.turn-1.json',
    'two-turns.session.json',
    'untold.clear-queue-during-compaction.session.json',
    'untold.queued-turn-commands.session.json',
    'untold.queued-turn-commands.turn-1.json',
    'untold.queued-turn-commands.turn-3.json',
    'untold.two-turns.session.json',
    'view.queued-turn-commands.session.json',
    'view.queued-turn-commands.turn-1.json',
    'view.queued-turn-commands.turn-3.json',
    'view.revert.session.json',
    'view.settings-during-approval.session.json',
    'view.settings-during-approval.turn-1.json',
    'view.turn-continue-as-new.session.run-1.json',
    'view.turn-continue-as-new.session.run-2.json',
    'view.turn-continue-as-new.turn-1.run-1.json',
    'view.turn-continue-as-new.turn-1.run-2.json',
    'view.turn-continue-as-new.turn-1.run-5.json',
    'view.two-turns.session.json',
  ]);
  const results: Array<{ file: string; error?: string }> = [];
  // One replay per history under the workflow id it was recorded with (a sub-agent's id derives from
  // its parent turn's): a set's prefix aside, two sets may share ids, so they are not replayed as one batch.
  for (const file of files) {
    try {
      await Worker.runReplayHistory({ workflowBundle: bundle }, loadHistory(file), recordedWorkflowId(file));
      results.push({ file });
    } catch (err) {
      results.push({ file, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
    }
  }
  expect(results).toEqual(files.map((file) => ({ file })));
}, 120_000);
