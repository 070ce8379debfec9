// @jsxRuntime automatic
// (tsx takes JSX settings from the tsconfig of the directory it runs in, which a chat started in a
// project is not: the pragma makes esbuild use React's automatic runtime wherever it runs.)
import type { ChatBlock } from '../chat-blocks';
import type { PendingApproval } from '../gateway-client';
import { tail, toolDiff, toolTitle } from '../tool-display';
import { ink } from './ink';
import { renderMarkdown } from './markdown';

type Block<K extends ChatBlock['kind']> = Extract<ChatBlock, { kind: K }>;

export interface BlockProps {
  block: ChatBlock;
  width: number;
  /** Thinking shown whole (Ctrl-O) instead of folded to one line. */
  showThinking: boolean;
  approvals: PendingApproval[];
  spinner: string;
}

function UserView({ block }: { block: Block<'user'> }) {
  const { Box, Text } = ink();
  return (
    <Box marginTop={1}>
      <Text color="cyan" bold>{'› '}</Text>
      <Text>{block.text || '…'}</Text>
    </Box>
  );
}

function ThinkingView({ text, done, show }: { text: string; done: boolean; show: boolean }) {
  const { Text } = ink();
  if (!text) return null;
  const lines = text.trim().split('\n');
  if (show) return <Text dimColor italic>{text.trim()}</Text>;
  // While it streams, its last lines show what the model is at; then one folded line.
  if (!done) return <Text dimColor italic>{`✻ ${lines.slice(-3).join('\n  ')}`}</Text>;
  return <Text dimColor italic>{`✻ thought for ${text.trim().split(/\s+/).length} words (Ctrl-O shows it)`}</Text>;
}

function AssistantView({ block, width, showThinking }: { block: Block<'assistant'>; width: number; showThinking: boolean }) {
  const { Box, Text } = ink();
  return (
    <Box flexDirection="column" marginTop={1}>
      <ThinkingView text={block.thinking} done={block.done || block.text.length > 0} show={showThinking} />
      {block.text ? <Text>{renderMarkdown(block.text, width)}</Text> : null}
      {block.stopReason === 'aborted' ? <Text color="yellow">(aborted)</Text> : null}
      {block.stopReason === 'length' ? <Text color="yellow">(cut at the output limit)</Text> : null}
    </Box>
  );
}

function ToolView({ block, approvals, spinner }: { block: Block<'tool'>; approvals: PendingApproval[]; spinner: string }) {
  const { Box, Text } = ink();
  const waiting = !block.outcome && approvals.some((a) => a.tool_call_id === block.callId);
  const mark = block.outcome === 'success' ? <Text color="green">✓</Text> : block.outcome === 'rejected' ? <Text color="yellow">✗</Text> : block.outcome === 'error' ? <Text color="red">✗</Text> : waiting ? <Text color="yellow">?</Text> : <Text color="blue">{spinner}</Text>;
  const diff = toolDiff(block.tool, block.params);
  const shown = block.result !== undefined ? tail(block.result, block.outcome === 'success' ? 3 : 6) : tail(block.output, 5);
  return (
    <Box flexDirection="column" marginTop={1}>
      <Box>
        {mark}
        <Text bold>{` ${toolTitle(block.tool, block.params)}`}</Text>
        <Text dimColor>{block.outcome ? ` ${block.outcome}` : waiting ? ' waits for your approval' : ' running'}</Text>
      </Box>
      {diff && block.outcome !== 'rejected' ? (
        <Box flexDirection="column" marginLeft={2}>
          {diff.map((d, i) => (
            <Text key={i} color={d.sign === '+' ? 'green' : 'red'}>{`${d.sign} ${d.text}`}</Text>
          ))}
        </Box>
      ) : null}
      {shown.length > 0 ? (
        <Box flexDirection="column" marginLeft={2}>
          {shown.map((line, i) => (
            <Text key={i} dimColor>{line}</Text>
          ))}
        </Box>
      ) : null}
    </Box>
  );
}

export function BlockView({ block, width, showThinking, approvals, spinner }: BlockProps) {
  const { Box, Text } = ink();
  switch (block.kind) {
    case 'user':
      return <UserView block={block} />;
    case 'assistant':
      return <AssistantView block={block} width={width} showThinking={showThinking} />;
    case 'tool':
      return <ToolView block={block} approvals={approvals} spinner={spinner} />;
    case 'notice':
      return (
        <Box marginTop={1}>
          <Text color={block.level === 'error' ? 'red' : block.level === 'warning' ? 'yellow' : 'gray'}>{block.text}</Text>
        </Box>
      );
    case 'turn-end':
      return block.outcome === 'done' ? null : (
        <Text color={block.outcome === 'error' ? 'red' : 'yellow'}>{`— turn ${block.outcome} —`}</Text>
      );
  }
}
