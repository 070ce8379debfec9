// @jsxRuntime automatic
// (tsx takes JSX settings from the tsconfig of the directory it runs in, which a chat started in a
// project is not: the pragma makes esbuild use React's automatic runtime wherever it runs.)
import type { PendingApproval } from '../gateway-client';
import { toolTitle } from '../tool-display';
import { ink } from './ink';

/** The first tool call waiting for a person: y allows it, a allows its tool from now on, n rejects it. */
export function ApprovalBar({ approval, more, reason }: { approval: PendingApproval; more: number; reason: string | undefined }) {
  const { Box, Text } = ink();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text>
        <Text color="yellow" bold>Allow </Text>
        <Text bold>{toolTitle(approval.tool, approval.params)}</Text>
        <Text color="yellow" bold>?</Text>
        {more > 0 ? <Text dimColor>{` (${more} more waiting)`}</Text> : null}
      </Text>
      {reason === undefined ? (
        <Text>
          <Text color="green">[y]</Text> yes <Text color="green">[a]</Text> always {approval.tool} <Text color="red">[n]</Text> no (with a reason)
        </Text>
      ) : (
        <Text>
          {'Why not (the model reads it; Enter sends, empty for no reason): '}
          {reason}
          <Text inverse> </Text>
        </Text>
      )}
    </Box>
  );
}
