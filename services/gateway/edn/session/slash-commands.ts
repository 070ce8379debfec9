/** The slash commands the `command` op understands (also `get_commands` and `/help`). */
export const SLASH_COMMANDS: ReadonlyArray<{ name: string; args?: string; description: string }> = [
  { name: 'model', args: '[provider model]', description: 'show a model picker, or switch to the model named' },
  { name: 'thinking', args: '[level]', description: 'show a thinking-level picker, or set the level (off, minimal, low, medium, high, xhigh)' },
  { name: 'compact', args: '[instructions]', description: 'summarize the conversation so far to free context' },
  { name: 'new', description: 'start a new session in this project' },
  { name: 'fork', args: '[entry-id]', description: 'continue in a new session holding the conversation (up to an entry)' },
  { name: 'resume', args: '[session-id]', description: 'pick a session to resume, or resume the one named' },
  { name: 'tree', args: '[session-id]', description: "pick one of this project's sessions or a fork point, or switch to the one named" },
  { name: 'name', args: '[name]', description: "show or set this session's name" },
  { name: 'history', description: 'list the conversation so far' },
  { name: 'undo', args: '[turn-id|entry-id] [force]', description: "put the files back as they were before the last turn (or the one named) and go back to before it" },
  { name: 'redo', args: '[force]', description: 'redo the last undo: its files and its conversation' },
  { name: 'status', description: "show this session's id, model, phase and usage" },
  { name: 'help', description: 'list the commands' },
  { name: 'quit', description: 'close this client' },
];
