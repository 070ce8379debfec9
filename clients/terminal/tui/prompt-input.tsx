// @jsxRuntime automatic
// (tsx takes JSX settings from the tsconfig of the directory it runs in, which a chat started in a
// project is not: the pragma makes esbuild use React's automatic runtime wherever it runs.)
import type { InputBuffer } from '../input-buffer';
import { commandUsage } from '../../../contracts/slash-commands';
import { slashCandidates } from '../slash-commands';
import { ink } from './ink';

/** The input box: the buffer with its cursor, and the commands a typed `/…` could complete to. */
export function PromptInput({ buffer, hint, active }: { buffer: InputBuffer; hint: string; active: boolean }) {
  const { Box, Text } = ink();
  const text = buffer.lines.join('\n');
  const candidates = slashCandidates(text);
  return (
    <Box flexDirection="column">
      <Box borderStyle="round" borderColor={active ? 'gray' : 'blackBright'} paddingX={1} flexDirection="column">
        {buffer.lines.map((line, row) => {
          const prefix = row === 0 ? '> ' : '  ';
          if (!active || row !== buffer.row) return <Text key={row}>{prefix + (line || (row === 0 && buffer.lines.length === 1 ? '' : ' '))}</Text>;
          const at = line[buffer.col] ?? ' ';
          return (
            <Text key={row}>
              {prefix + line.slice(0, buffer.col)}
              <Text inverse>{at}</Text>
              {line.slice(buffer.col + 1)}
            </Text>
          );
        })}
      </Box>
      {candidates.length > 0 && text.length > 0 ? (
        <Box flexDirection="column" marginLeft={2}>
          {candidates.map((c) => (
            <Text key={c.name} dimColor>{`${commandUsage(c)} — ${c.help}`}</Text>
          ))}
        </Box>
      ) : null}
      {hint ? <Text dimColor>{hint}</Text> : null}
    </Box>
  );
}
