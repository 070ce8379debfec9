/** A tool call as a stream announced it: later tool events name it by this. */
export interface ToolCallView {
  name: string;
  params: unknown;
  turn: string | undefined;
}

interface Call extends ToolCallView {
  output: string;
  clipped: boolean;
}

/**
 * The tool calls one stream has announced, so `tool.executing`/`tool.output`/`tool.result` (which
 * carry only the call id) can be named, and a call this stream never announced is known to be
 * foreign. Keeps the newest `tailChars` of each call's output: a client that replaces a row's body
 * with each update needs the newest part, and the whole output comes with the result.
 */
export class ToolCalls {
  private readonly calls = new Map<string, Call>();

  constructor(private readonly tailChars: number) {}

  announce(id: string, name: string, params: unknown, turn: string | undefined): ToolCallView {
    const call: Call = { name, params, turn, output: '', clipped: false };
    this.calls.set(id, call);
    return view(call);
  }

  get(id: string): ToolCallView | undefined {
    const call = this.calls.get(id);
    return call && view(call);
  }

  /** Adds output to the call and answers its newest part so far (only this piece for an unknown call). */
  output(id: string, piece: string): { tail: string; clipped: boolean } {
    const call = this.calls.get(id);
    const all = (call?.output ?? '') + piece;
    const clipped = (call?.clipped ?? false) || all.length > this.tailChars;
    const tail = all.length > this.tailChars ? all.slice(all.length - this.tailChars) : all;
    if (call) {
      call.output = tail;
      call.clipped = clipped;
    }
    return { tail, clipped };
  }

  forgetTurn(turnId: string): void {
    for (const [id, call] of this.calls) if (call.turn === turnId) this.calls.delete(id);
  }
}

function view(call: Call): ToolCallView {
  return { name: call.name, params: call.params, turn: call.turn };
}
