// @jsxRuntime automatic
// (tsx takes JSX settings from the tsconfig of the directory it runs in, which a chat started in a
// project is not: the pragma makes esbuild use React's automatic runtime wherever it runs.)
import type { Picker } from '../chat-controller';
import { ink } from './ink';

const VISIBLE = 10;

/** A list to choose from (the controller's picker), the chosen line marked; ↑/↓, Enter, Esc. */
export function PickerView({ picker, selected }: { picker: Picker; selected: number }) {
  const { Box, Text } = ink();
  const start = Math.max(0, Math.min(selected - Math.floor(VISIBLE / 2), picker.items.length - VISIBLE));
  const shown = picker.items.slice(start, start + VISIBLE);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text bold>{picker.title}</Text>
      {shown.map((item, i) => (
        <Text key={item.value + i} {...(start + i === selected ? { color: 'cyan', bold: true } : {})}>
          {`${start + i === selected ? '❯ ' : '  '}${item.label}`}
        </Text>
      ))}
      {picker.items.length > VISIBLE ? <Text dimColor>{`${selected + 1}/${picker.items.length}`}</Text> : null}
      <Text dimColor>↑/↓ choose · Enter open · Esc close</Text>
    </Box>
  );
}
