import { gatewayAddressFromEnv } from '../../clients/terminal/gateway-address';
import { runPipeChat } from '../../clients/terminal/pipe-chat';
import type { SessionWish } from '../../clients/terminal/session-choice';
import { UsageError } from './cli-args';
import { sayError } from './safe-output';

interface ChatCommand {
  cwd: string;
  prompt?: string;
  sessionId?: string;
  new: boolean;
  yes: boolean;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * `strand chat` (parsed by cli-args.ts). With a terminal on both ends and no `-p`: the interactive
 * chat (clients/terminal/tui, loaded only then: Ink is an ES module with top-level await, which only
 * `import()` can load). Otherwise one turn printed as text (pipe-chat.ts), the exit code its outcome.
 */
export async function chat(cli: ChatCommand): Promise<void> {
  const address = gatewayAddressFromEnv();
  const wish: SessionWish = cli.sessionId !== undefined ? { kind: 'id', id: cli.sessionId } : cli.new ? { kind: 'new' } : { kind: 'latest' };
  if (cli.prompt === undefined && process.stdin.isTTY && process.stdout.isTTY) {
    const { runTui } = await import('../../clients/terminal/tui/run-tui');
    return runTui({ address, cwd: cli.cwd, session: cli.sessionId !== undefined || cli.new ? wish : { kind: 'pick' } });
  }
  // A piped prompt's last newline (echo, a heredoc) is not part of what was meant.
  const prompt = cli.prompt ?? (await readStdin()).replace(/\s+$/, '');
  if (!prompt.trim()) throw new UsageError('strand chat: no prompt: give one with -p, or pipe it to stdin (see `strand chat --help`)');
  const interrupt = new AbortController();
  process.once('SIGINT', () => interrupt.abort());
  process.exitCode = await runPipeChat({
    address,
    cwd: cli.cwd,
    prompt,
    session: wish,
    yes: cli.yes,
    write: (text) => void process.stdout.write(text),
    note: sayError,
    signal: interrupt.signal,
  });
}
