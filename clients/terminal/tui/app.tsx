// @jsxRuntime automatic
// (tsx takes JSX settings from the tsconfig of the directory it runs in, which a chat started in a
// project is not: the pragma makes esbuild use React's automatic runtime wherever it runs.)
import { useEffect, useRef, useState } from 'react';
import type { ChatController } from '../chat-controller';
import * as edit from '../input-buffer';
import { completeSlash } from '../slash-commands';
import { ApprovalBar } from './approval-bar';
import { BlockView } from './block-view';
import { Footer } from './footer';
import { ink, type Key } from './ink';
import { PickerView } from './picker-view';
import { PromptInput } from './prompt-input';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** A second Ctrl-C within this time quits. */
const QUIT_WINDOW_MS = 2_000;
/** Redraws at most this often while events pour in (each delta would otherwise redraw). */
const FRAME_MS = 40;

/** Re-renders when the controller changes, at most once a frame. */
function useController(chat: ChatController): void {
  const [, setTick] = useState(0);
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    const off = chat.subscribe(() => {
      timer ??= setTimeout(() => {
        timer = undefined;
        setTick((t) => t + 1);
      }, FRAME_MS);
    });
    return () => {
      off();
      if (timer) clearTimeout(timer);
    };
  }, [chat]);
}

function useSpinner(running: boolean): string {
  const [frame, setFrame] = useState(0);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setFrame((f) => (f + 1) % SPINNER.length), 100);
    return () => clearInterval(timer);
  }, [running]);
  return SPINNER[frame]!;
}

interface UiState {
  buffer: edit.InputBuffer;
  /** The picker's chosen line. */
  selected: number;
  /** Typing the reason of a rejection (after `n`). */
  reason: string | undefined;
  showThinking: boolean;
  hint: string;
  lastCtrlC: number;
  /** The picker and approval last drawn, to start a new one fresh. */
  picker: unknown;
  approval: string | undefined;
}

/** The whole chat: the settled conversation (drawn once), the live turn, and the input or a prompt for a decision. */
export function App({ chat }: { chat: ChatController }) {
  const { Box, Static, Text, useApp, useInput, useStdout } = ink();
  useController(chat);
  const app = useApp();
  const { stdout } = useStdout();
  // Keys arrive faster than React renders (a paste, `tmux send-keys`, key repeat): every handler reads
  // and writes this one object synchronously, so no key works on a stale copy of the input.
  const ui = useRef<UiState>({ buffer: edit.emptyBuffer, selected: 0, reason: undefined, showThinking: false, hint: '', lastCtrlC: 0, picker: undefined, approval: undefined });
  const [, redraw] = useState(0);
  const drawn = useRef(chat.redrawn);
  const set = (patch: Partial<UiState>) => {
    Object.assign(ui.current, patch);
    redraw((n) => n + 1);
  };
  const view = chat.view;
  const running = view.turn !== undefined || view.phase !== 'idle';
  const spinner = useSpinner(running || chat.connection.kind !== 'live');
  const approval = view.approvals[0];
  const picker = chat.picker;
  const width = Math.max(20, (stdout.columns || 80) - 2);

  useEffect(() => {
    if (chat.quitting) app.exit();
  });
  /** A new picker starts at its first line; a new approval without a reason typed. */
  const sync = () => {
    const now = ui.current;
    if (now.picker !== chat.picker) Object.assign(now, { picker: chat.picker, selected: 0 });
    const waiting = chat.view.approvals[0]?.tool_call_id;
    if (now.approval !== waiting) Object.assign(now, { approval: waiting, reason: undefined });
    return now;
  };
  const { buffer, selected, reason, showThinking, hint } = sync();

  const setBuffer = (buffer: edit.InputBuffer) => set({ buffer });
  const submit = (from: edit.InputBuffer = ui.current.buffer) => {
    let text = edit.bufferText(from);
    // A line ending in a backslash asks for a new line, as in a shell.
    if (text.endsWith('\\')) return setBuffer(edit.newline(edit.backspace(from)));
    text = text.trim();
    setBuffer(edit.emptyBuffer);
    if (text) void chat.submit(text);
  };

  const onKey = (input: string, key: Key) => {
    const now = sync();
    const picker = chat.picker;
    const approval = chat.view.approvals[0];
    const buffer = now.buffer;
    if (key.ctrl && input === 'c') {
      if (Date.now() - now.lastCtrlC < QUIT_WINDOW_MS) return app.exit();
      return set({ lastCtrlC: Date.now(), buffer: edit.emptyBuffer, reason: undefined, hint: 'Ctrl-C again to quit (a running turn goes on)' });
    }
    if (now.hint) set({ hint: '' });
    if (picker) {
      if (key.escape) return chat.pick(undefined);
      const answer = picker.keys?.[input];
      if (answer !== undefined) {
        chat.pick(undefined);
        return void picker.choose(answer);
      }
      if (key.upArrow) return set({ selected: Math.max(0, now.selected - 1) });
      if (key.downArrow) return set({ selected: Math.min(picker.items.length - 1, now.selected + 1) });
      const item = picker.items[now.selected];
      if (key.return && item) {
        chat.pick(undefined);
        void picker.choose(item.value);
      }
      return;
    }
    if (key.escape) return chat.abort();
    if (key.ctrl && input === 'o') return set({ showThinking: !now.showThinking });
    if (approval && now.reason !== undefined) {
      if (key.return) return chat.reject(approval.tool_call_id, now.reason);
      if (key.backspace || key.delete) return set({ reason: now.reason.slice(0, -1) });
      if (key.ctrl || key.meta || !input) return;
      // Text and Enter in one read: the text, then send.
      const enter = input.indexOf('\r');
      if (enter >= 0) return chat.reject(approval.tool_call_id, now.reason + input.slice(0, enter));
      return set({ reason: now.reason + input.replace(/\n/g, ' ') });
    }
    if (approval) {
      if (input === 'y') return chat.approve(approval.tool_call_id, false);
      if (input === 'a') return chat.approve(approval.tool_call_id, true);
      if (input === 'n') return set({ reason: '' });
      return;
    }
    if (key.return && key.meta) return setBuffer(edit.newline(buffer));
    if (key.return) return submit();
    // Text and a key in one read (typed faster than read, `tmux send-keys text Enter`): the text, then
    // the key. Only a last one counts: a pasted text's own line breaks stay line breaks.
    const last = input.at(-1) ?? '';
    if (input.length > 1 && last < ' ' && last !== '\n' && !input.slice(0, -1).includes('\r')) {
      setBuffer(edit.insert(buffer, input.slice(0, -1)));
      return onKey(last === '\r' || last === '\t' ? last : String.fromCharCode(last.charCodeAt(0) + 96), { ...key, return: last === '\r', tab: last === '\t', ctrl: last !== '\r' && last !== '\t' });
    }
    if (input === '\n') return setBuffer(edit.newline(buffer));
    if (key.tab) return setBuffer(edit.bufferOf(completeSlash(edit.bufferText(buffer))));
    if (key.backspace || key.delete) return setBuffer(edit.backspace(buffer));
    if (key.leftArrow) return setBuffer(edit.left(buffer));
    if (key.rightArrow) return setBuffer(edit.right(buffer));
    if (key.home || (key.ctrl && input === 'a')) return setBuffer(edit.home(buffer));
    if (key.end || (key.ctrl && input === 'e')) return setBuffer(edit.end(buffer));
    if (key.ctrl && input === 's') {
      chat.steer(edit.bufferText(buffer).trim());
      return setBuffer(edit.emptyBuffer);
    }
    if (key.ctrl && input === 'w') return setBuffer(edit.deleteWordBack(buffer));
    if (key.ctrl && input === 'u') return setBuffer(edit.deleteToLineStart(buffer));
    if (key.ctrl && input === 'k') return setBuffer(edit.deleteToLineEnd(buffer));
    if (key.upArrow) {
      const moved = edit.up(buffer);
      if (moved) return setBuffer(moved);
      const earlier = chat.history.back(edit.bufferText(buffer));
      if (earlier !== undefined) setBuffer(edit.bufferOf(earlier));
      return;
    }
    if (key.downArrow) {
      const moved = edit.down(buffer);
      if (moved) return setBuffer(moved);
      const later = chat.history.forward();
      if (later !== undefined) setBuffer(edit.bufferOf(later));
      return;
    }
    if (key.ctrl || key.meta || !input) return;
    setBuffer(edit.insert(buffer, input));
  };
  useInput(onKey);

  // A reloaded conversation (an undo or redo moved it) is drawn anew: what <Static> wrote stays in the
  // terminal otherwise, undone turns included. The screen and scrollback are cleared before Ink writes
  // this render (React renders before Ink outputs), once per reload.
  if (drawn.current !== chat.redrawn) {
    drawn.current = chat.redrawn;
    stdout.write('\x1b[2J\x1b[3J\x1b[H');
  }
  const settled = view.blocks.slice(0, view.settled);
  const live = view.live();
  const blockProps = { width, showThinking, approvals: view.approvals, spinner };
  return (
    <Box flexDirection="column">
      <Static key={`${chat.sessionId ?? 'none'}:${chat.redrawn}`} items={settled}>
        {(block) => <BlockView key={block.key} block={block} {...blockProps} showThinking={false} />}
      </Static>
      {live.map((block) => (
        <BlockView key={block.key} block={block} {...blockProps} />
      ))}
      {view.queued.map((q) => (
        <Box key={q.turn} marginTop={1}>
          <Text dimColor>{`› ${q.text}  (queued)`}</Text>
        </Box>
      ))}
      <Box marginTop={1} flexDirection="column">
        {picker ? <PickerView picker={picker} selected={selected} /> : approval ? <ApprovalBar approval={approval} more={view.approvals.length - 1} reason={reason} /> : <PromptInput buffer={buffer} hint={hint} active />}
        <Footer chat={chat} spinner={spinner} />
      </Box>
    </Box>
  );
}
