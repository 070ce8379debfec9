import { useEffect, useState } from 'preact/hooks';
import type { ChatSession } from '../chat-session';
import type { JobWatch } from '../job-watch';
import { useChat } from '../use-chat';
import { useJob } from '../use-job';
import { ApprovalControls } from './approval';
import { Diff } from './diff';
import { Composer } from './composer';
import { Conversation } from './conversation';
import { JobBanner } from './job-banner';
import { SessionBar } from './session-bar';
import { SettingsPanel } from './settings-panel';
import { StatusBar } from './status-bar';
import { RevertConflict } from './undo-controls';
import { toolTitle } from '../../../terminal/tool-display';

/** Why a job's session takes no prompt from the page. */
const JOB_LOCKED = "This is a job's session: the job runs its own turns, so no prompt can be sent here. Answer its escalations or cancel it above; fork the conversation once it ended to go on by hand.";

/**
 * One open session: its header (name, connection, transcript, Compact, Settings), the settings when
 * asked for, the conversation, approvals the conversation has no row for, queued follow-ups, the
 * message box, and the footer (model, thinking, totals). Esc anywhere on the page stops the running turn.
 *
 * A job's session (`job`, docs/jobs.md "On the page") shows the job above its conversation and takes
 * no prompt, setting or stop of its own: the job runs its turns, and is cancelled as a whole.
 */
export function ChatPane({ chat, onSessionsChanged, job }: { chat: ChatSession; onSessionsChanged: () => Promise<void>; job?: JobWatch }) {
  useChat(chat);
  useJob(job);
  const view = chat.view;
  const [settingsOpen, setSettingsOpen] = useState(false);
  const isJob = job !== undefined && !job.notAJob;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && chat.running && !isJob && !e.defaultPrevented) {
        e.preventDefault();
        void chat.stop();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [chat, isJob]);

  // A finished turn may have renamed the session or changed its counts.
  const turn = view.turn;
  useEffect(() => {
    if (turn === undefined) void onSessionsChanged();
  }, [turn, onSessionsChanged]);

  const shownCalls = new Set(view.blocks.flatMap((b) => (b.kind === 'tool' ? [b.callId] : [])));
  const orphanApprovals = view.approvals.filter((a) => !shownCalls.has(a.tool_call_id));
  const escalated = new Set((job?.view?.progress?.escalations ?? []).map((e) => e.tool_call_id));

  return (
    <div class="chat">
      <SessionBar chat={chat} settingsOpen={settingsOpen} toggleSettings={() => setSettingsOpen((open) => !open)} job={isJob} />
      {isJob && <JobBanner job={job} chat={chat} />}
      {settingsOpen && !isJob && <SettingsPanel chat={chat} onClose={() => setSettingsOpen(false)} onRenamed={onSessionsChanged} />}
      {chat.fatal ? (
        <p class="problem" role="alert">
          {chat.fatal}
        </p>
      ) : (
        <Conversation chat={chat} {...(isJob ? { job: { escalated } } : {})} />
      )}
      {orphanApprovals.length > 0 && (
        <section class="approvals" aria-label="Waiting for approval">
          {orphanApprovals.map((a) => (
            <div class="approval-row" key={a.tool_call_id}>
              <span class="tool-title">{toolTitle(a.tool, a.params)}</span>
              <Diff tool={a.tool} params={a.params} />
              <ApprovalControls chat={chat} toolCallId={a.tool_call_id} />
            </div>
          ))}
        </section>
      )}
      {view.queued.length > 0 && (
        <section class="queued" aria-label="Queued follow-ups">
          <h3>Queued</h3>
          <ol>
            {view.queued.map((q) => (
              <li key={q.turn}>{q.text}</li>
            ))}
          </ol>
        </section>
      )}
      <RevertConflict chat={chat} />
      {chat.problem && (
        <p class="problem" role="alert">
          {chat.problem}
        </p>
      )}
      <Composer chat={chat} {...(isJob ? { locked: JOB_LOCKED } : {})} />
      <StatusBar chat={chat} locked={isJob} />
    </div>
  );
}
