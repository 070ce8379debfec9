// @jsxRuntime automatic
// (tsx takes JSX settings from the tsconfig of the directory it runs in, which a chat started in a
// project is not: the pragma makes esbuild use React's automatic runtime wherever it runs.)
import type { ChatController } from '../chat-controller';
import { ink } from './ink';

const tokens = (n: number) => (n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : `${n}`);

/** The status line: phase, model, thinking level, tokens, cost, context use, and the connection. */
export function Footer({ chat, spinner }: { chat: ChatController; spinner: string }) {
  const { Box, Text } = ink();
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
  return (
    <Box>
      {running ? <Text color="cyan">{`${spinner} ${view.phase.replace('_', ' ')}${view.phaseDetails ? ` (${view.phaseDetails})` : ''}  `}</Text> : null}
      {view.queued.length > 0 ? <Text color="cyan">{`${view.queued.length} queued  `}</Text> : null}
      <Text dimColor>
        {[session?.model ?? stats?.model ?? '…', `thinking ${session?.thinking_level ?? '…'}`, `↑${tokens(input)} ↓${tokens(output)}`, spent, tokenCap, context].filter(Boolean).join(' · ')}
      </Text>
      {connection.kind === 'reconnecting' ? <Text color="yellow">{`  reconnecting (${connection.reason})…`}</Text> : null}
      {connection.kind === 'connecting' ? <Text color="yellow">{'  connecting…'}</Text> : null}
    </Box>
  );
}
