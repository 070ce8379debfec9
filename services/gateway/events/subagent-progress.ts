import type { AgentEvent, AgentEventEnvelope } from '../../../contracts/agent-events';

/** Longest piece of a sub-agent's text or a tool's parameters shown on one progress line. */
const LINE_MAX = 300;

/**
 * A sub-agent's event (docs/subagents.md) as one line of its `task` call's output: what the
 * sub-agent does (the tools it calls, what they found, what it says, how it failed). Streams that
 * cannot show a second conversation show this as the task call's progress, as they show a shell
 * command's output; everything else a sub-agent publishes (its deltas, states, usage) is not shown
 * there. Undefined for an event that makes no line.
 */
export function subagentProgressLine(envelope: AgentEventEnvelope): { tool_call_id: string; line: string } | undefined {
  if (!envelope.subagent) return undefined;
  const line = lineOf(envelope.event);
  return line === undefined ? undefined : { tool_call_id: envelope.subagent.tool_call_id, line: `${line}\n` };
}

function lineOf(e: AgentEvent): string | undefined {
  switch (e.type) {
    case 'tool.call':
      return `→ ${e.tool}${argsOf(e.params)}`;
    case 'tool.result':
      return `  ${clip(e.summary)}`;
    case 'assistant.message':
      return e.text.trim() ? clip(e.text.trim()) : undefined;
    case 'error':
      return `error: ${clip(e.message)}`;
    default:
      return undefined;
  }
}

function argsOf(params: unknown): string {
  if (!params || typeof params !== 'object') return '';
  const p = params as Record<string, unknown>;
  const main = [p.path, p.pattern, p.command].find((v) => typeof v === 'string' && v !== '');
  if (typeof main === 'string') return ` ${clip(main)}`;
  const json = JSON.stringify(params);
  return json === '{}' ? '' : ` ${clip(json)}`;
}

function clip(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > LINE_MAX ? `${one.slice(0, LINE_MAX - 1)}…` : one;
}
