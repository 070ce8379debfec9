import type { ChatBlock } from '../../../terminal/chat-blocks';
import { tail, toolTitle } from '../../../terminal/tool-display';
import type { ChatSession } from '../chat-session';
import { ApprovalControls } from './approval';
import { Diff } from './diff';

type ToolBlock = Extract<ChatBlock, { kind: 'tool' }>;

const STATUS: Record<string, string> = { success: 'done', error: 'failed', rejected: 'rejected' };

/**
 * One tool call as a row that changes in place: asked (with its approval controls when it waits for
 * a person), running with its streamed output, then its result. Edits show their diff. A job's call
 * escalated by its policy (`escalated`) waits for a person too: it is answered in the job's banner.
 */
export function ToolRow({ block, chat, waiting, escalated = false }: { block: ToolBlock; chat: ChatSession; waiting: boolean; escalated?: boolean }) {
  const status = block.outcome ? STATUS[block.outcome]! : waiting ? 'waiting for approval' : escalated ? 'waiting for a person (see the job above)' : block.output ? 'running' : chat.running ? 'running' : 'not run';
  const title = toolTitle(block.tool, block.params);
  const output = block.result ?? block.output;
  return (
    <article class={`tool ${block.outcome ?? (waiting || escalated ? 'waiting' : 'running')}`} aria-label={`Tool ${block.tool}`}>
      <header>
        <span class="tool-title">{title}</span>
        <span class="tool-status" aria-label="Tool status">
          {status}
        </span>
      </header>
      <Diff tool={block.tool} params={block.params} />
      {waiting && <ApprovalControls chat={chat} toolCallId={block.callId} />}
      {output && (
        <details class="tool-output" open={!block.outcome || block.outcome !== 'success'}>
          <summary>{block.result !== undefined ? 'result' : 'output'}</summary>
          <pre>{block.outcome ? output : tail(output, 30).join('\n')}</pre>
        </details>
      )}
    </article>
  );
}
