import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import type { ChatBlock } from '../../../terminal/chat-blocks';
import { forkEntryOf } from '../../../terminal/fork-points';
import type { ChatSession } from '../chat-session';
import { renderMarkdown } from '../markdown';
import { ForkButton } from './fork-button';
import { ToolRow } from './tool-row';
import { UndoButton } from './undo-controls';

type Block<K extends ChatBlock['kind']> = Extract<ChatBlock, { kind: K }>;

/** An answer's markdown, parsed again only when its text changed. */
function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

function Assistant({ block, streaming, chat }: { block: Block<'assistant'>; streaming: boolean; chat: ChatSession }) {
  const forkAt = forkEntryOf(block);
  // A step of tool calls only has nothing to read: its tool rows follow, and an empty box would not.
  if (!block.text && !block.thinking && block.stopReason !== 'aborted' && block.stopReason !== 'length') return null;
  return (
    <article class={`msg assistant${streaming ? ' streaming' : ''}`} aria-label="Answer">
      {block.thinking && (
        <details class="thinking">
          <summary>Thinking</summary>
          <div class="thinking-text">{block.thinking}</div>
        </details>
      )}
      {block.text && <Markdown text={block.text} />}
      {block.stopReason === 'aborted' && <p class="stopped">stopped</p>}
      {block.stopReason === 'length' && <p class="stopped">cut at the model's output limit</p>}
      {forkAt && !chat.running && <ForkButton chat={chat} entryId={forkAt} />}
    </article>
  );
}

function TurnEnd({ block, chat }: { block: Block<'turn-end'>; chat: ChatSession }) {
  const files = chat.files.get(block.turn) ?? [];
  return (
    <div class={`turn-end ${block.outcome}`}>
      {block.outcome === 'done' ? 'done' : block.outcome === 'aborted' ? 'turn stopped' : 'turn failed'}
      {files.length > 0 && (
        <ul class="files" aria-label="Files changed">
          {files.map((f) => (
            <li key={`${f.operation}:${f.path}`}>
              <span class={`op ${f.operation}`}>{f.operation}</span> {f.path}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The conversation as blocks: prompts, answers (markdown, thinking folded), tool calls as rows that
 * update in place, notices, and each turn's end with the files it changed. It follows the bottom
 * while the reader is there, and leaves them be when they scrolled up to read. A job's session
 * (`job`) shows its calls waiting for a person (`escalated`) and offers no undo: the job owns its turns.
 */
export function Conversation({ chat, job }: { chat: ChatSession; job?: { escalated: ReadonlySet<string> } }) {
  const view = chat.view;
  const box = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);

  useLayoutEffect(() => {
    const el = box.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });

  const onScroll = () => {
    const el = box.current;
    if (el) pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
  };

  const pending = new Set(view.approvals.map((a) => a.tool_call_id));
  const phase = view.phase;
  return (
    <div class="conversation" role="log" aria-label="Conversation" aria-live="polite" ref={box} onScroll={onScroll}>
      {view.blocks.length === 0 && <p class="hint">{job ? 'Nothing here yet: the job has not started its turn.' : 'Nothing here yet: ask something below.'}</p>}
      {view.blocks.map((block) => {
        switch (block.kind) {
          case 'user': {
            const forkAt = forkEntryOf(block);
            return (
              <article key={block.key} class="msg user" aria-label="Prompt">
                <div class="user-text">{block.text}</div>
                {forkAt && !chat.running && <ForkButton chat={chat} entryId={forkAt} />}
                {block.turn && !chat.running && !job && <UndoButton chat={chat} turn={block.turn} />}
              </article>
            );
          }
          case 'assistant':
            return <Assistant key={block.key} block={block} streaming={!block.done} chat={chat} />;
          case 'tool':
            return <ToolRow key={block.key} block={block} chat={chat} waiting={pending.has(block.callId)} escalated={job?.escalated.has(block.callId) ?? false} />;
          case 'notice':
            return (
              <p key={block.key} class={`notice ${block.level}`}>
                {block.text}
              </p>
            );
          case 'turn-end':
            return <TurnEnd key={block.key} block={block} chat={chat} />;
        }
      })}
      {chat.running && (
        <p class="phase" aria-label="Agent state">
          <span class="spinner" aria-hidden="true" /> {phaseText(phase)}
        </p>
      )}
    </div>
  );
}

function phaseText(phase: string): string {
  switch (phase) {
    case 'thinking':
      return 'thinking…';
    case 'tool_execution':
      return 'running tools…';
    case 'waiting_approval':
      return 'waiting for your approval';
    case 'retrying':
      return 'retrying the model step…';
    case 'compacting':
      return 'compacting the conversation…';
    case 'waiting_budget':
      return 'waiting for a higher budget (Settings → Budget)';
    default:
      return 'working…';
  }
}
