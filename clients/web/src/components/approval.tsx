import { useState } from 'preact/hooks';
import type { ChatSession } from '../chat-session';

/**
 * Approve, Always (this tool from now on, in this session) or Reject with an optional reason, which
 * is what the model reads. Shown in place, in the tool call's row.
 */
export function ApprovalControls({ chat, toolCallId }: { chat: ChatSession; toolCallId: string }) {
  const [reason, setReason] = useState('');
  const reasonId = `reason-${toolCallId}`;
  return (
    <div class="approval" role="group" aria-label="Approval">
      <span class="approval-question">Run this?</span>
      <button type="button" class="primary" onClick={() => void chat.approve(toolCallId, false)}>
        Approve
      </button>
      <button type="button" onClick={() => void chat.approve(toolCallId, true)} title="Approve, and do not ask again for this tool in this session">
        Always
      </button>
      <label class="visually-hidden" for={reasonId}>
        Reason
      </label>
      <input
        id={reasonId}
        type="text"
        class="reason"
        placeholder="reason (optional)"
        value={reason}
        onInput={(e) => setReason(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void chat.reject(toolCallId, reason);
          }
        }}
      />
      <button type="button" class="danger" onClick={() => void chat.reject(toolCallId, reason)}>
        Reject
      </button>
    </div>
  );
}
