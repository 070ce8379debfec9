import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(__dirname, '../..');
const TMUX = '/usr/bin/tmux';

/** `strand chat` in a real terminal: a tmux server of its own, driven by send-keys, read by capture-pane. */
export interface ChatTerminal {
  /** Keys as tmux names them (`Enter`, `Escape`, `C-c`, `Down`) or literal text with `{ literal: true }`. */
  keys(...keys: string[]): void;
  /** Types text literally (no key names), without Enter. */
  type(text: string): void;
  /** The whole screen and its scrollback, as text. */
  screen(): string;
  /** Polls the screen until `until` holds; on timeout fails with the screen in the message. */
  waitFor(until: (screen: string) => boolean, what: string, timeoutMs?: number): Promise<string>;
  close(): void;
}

/**
 * Starts `bin/strand.cjs chat <args>` in a 120x40 tmux window of a private server (`-L` with a unique
 * socket name, so parallel runs and a person's own tmux are never touched). When the chat exits the
 * window prints `[chat exited <code>]` and stays, so a test can read how it ended.
 */
export function startChatTerminal(args: string[], options: { cwd: string; gateway: string; env?: Record<string, string> }): ChatTerminal {
  const socket = `strand-chat-${process.pid}-${randomBytes(4).toString('hex')}`;
  const tmux = (...a: string[]) => execFileSync(TMUX, ['-L', socket, ...a], { encoding: 'utf8' });
  // CI=true as CI machines set it: Ink would then draw only the last frame, and the chat must not.
  const env = { STRAND_URL: options.gateway, CI: 'true', ...options.env };
  const quoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const command = `env ${Object.entries(env).map(([k, v]) => `${k}=${quoted(v)}`).join(' ')} ${quoted(process.execPath)} ${quoted(path.join(REPO, 'bin/strand.cjs'))} chat ${args.map(quoted).join(' ')}; echo "[chat exited $?]"; sleep 600`;
  // -f /dev/null: no user configuration; the history limit is set before the window exists (it applies
  // to new windows only), so the window keeps all of the chat.
  tmux('-f', '/dev/null', 'start-server', ';', 'set-option', '-g', 'history-limit', '20000', ';', 'new-session', '-d', '-x', '120', '-y', '40', '-c', options.cwd, 'sh', '-c', command);
  const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', '0');
  // tmux leaves its socket file behind when its server is killed: removed on close.
  const socketPath = tmux('display-message', '-p', '#{socket_path}').trim();
  return {
    keys: (...keys) => void tmux('send-keys', '-t', '0', ...keys),
    type: (text) => void tmux('send-keys', '-t', '0', '-l', text),
    screen,
    async waitFor(until, what, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const text = screen();
        if (until(text)) return text;
        if (Date.now() > deadline) throw new Error(`the chat never showed ${what} within ${timeoutMs} ms; the screen:\n${text}`);
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    close() {
      try {
        tmux('kill-server');
      } catch {
        // Already gone.
      }
      fs.rmSync(socketPath, { force: true });
    },
  };
}
