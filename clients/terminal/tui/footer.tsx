// @jsxRuntime automatic
// (tsx takes JSX settings from the tsconfig of the directory it runs in, which a chat started in a
// project is not: the pragma makes esbuild use React's automatic runtime wherever it runs.)
import type { ChatController } from '../chat-controller';
import { footerLine, shortTokens as tokens } from './footer-line';
import { ink } from './ink';

/** The status line: phase, model, reasoning level, tokens, cost, context use, and the connection, on one line (footer-line.ts). */
export function Footer({ chat, spinner }: { chat: ChatController; spinner: string }) {
  const { Box, Text, useStdout } = ink();
  const { stdout } = useStdout();
  const { view, session, stats, connection } = chat;
  const input = (stats?.usage.input ?? 0) + view.usageSinceStats.input;
  const output = (stats?.usage.output ?? 0) + view.usageSinceStats.output;
  const cost = (stats?.usage.cost_usd ?? 0) + view.usageSinceStats.cost;
  const running = view.turn !== undefined || view.phase !== 'idle';
  const budget = stats?.budget;
  // Spent against the caps, when the session has any (docs/budgets.md).
  const spent = `$${cost.toFixed(4)}${typeof budget?.max_cost_usd === 'number' ? ` of $${budget.max_cost_usd}` : ''}`;
  const tokenCap = typeof budget?.max_tokens === 'number' ? `${tokens(input + output + (stats?.usage.cache_read ?? 0) + (stats?.usage.cache_write ?? 0))} of ${tokens(budget.max_tokens)} tokens` : '';
  const context = stats ? `context ${Math.round(stats.context.share * 100)}% of ${tokens(stats.context.window)}` : '';
  const segments = footerLine(
    {
      ...(running ? { phase: { text: `${spinner} ${view.phase.replace('_', ' ')}`, ...(view.phaseDetails ? { details: view.phaseDetails } : {}) } } : {}),
      queued: view.queued.length,
      model: session?.model ?? stats?.model ?? '…',
      reasoning: session?.thinking_level ?? '…',
      tokensIn: input,
      tokensOut: output,
      spent,
      tokenCap,
      context,
      ...(connection.kind === 'reconnecting' ? { connection: `reconnecting (${connection.reason})…` } : connection.kind === 'connecting' ? { connection: 'connecting…' } : {}),
    },
    stdout.columns || 100,
  );
  return (
    <Box>
      {segments.map((s, i) =>
        s.tone === 'phase' ? (
          <Text key={i} color="cyan">
            {s.text}
          </Text>
        ) : s.tone === 'warning' ? (
          <Text key={i} color="yellow">
            {s.text}
          </Text>
        ) : (
          <Text key={i} dimColor>
            {s.text}
          </Text>
        ),
      )}
    </Box>
  );
}
