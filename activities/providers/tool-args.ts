/**
 * Parses a tool call's streamed arguments. The contract wants an object; a model that sends broken
 * JSON (or a non-object) gets `{}` plus the raw text, so the tool can tell the model what went wrong
 * instead of the turn failing.
 */
export function parseToolArguments(raw: string): { arguments: Record<string, unknown>; invalid_arguments?: string } {
  if (raw.trim() === '') return { arguments: {} };
  try {
    const value: unknown = JSON.parse(raw);
    if (value && typeof value === 'object' && !Array.isArray(value)) return { arguments: value as Record<string, unknown> };
  } catch {
    // fall through: reported as invalid below
  }
  return { arguments: {}, invalid_arguments: raw };
}

/** Arguments as stored (any JSON) → the object the APIs expect for a call's input. */
export function argumentsObject(args: unknown): Record<string, unknown> {
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}
