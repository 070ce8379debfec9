import type { RecordedRequest } from '../../test/harness/fake-anthropic-server';
import type { FakeOpenAIReply } from '../../test/harness/fake-openai-server';

/**
 * The turn every job of the jobs bench runs, and every baseline prompt too, as the fake OpenAI-format
 * provider answers it: step 1 writes a file, step 2 runs a short command on it, step 3 ends with a
 * sentence. The prompt carries a marker `[bench <id>]`; the step is the number of assistant messages
 * after the last user message, so the answer depends on the request alone (a retried step is
 * answered the same way) and 50 conversations can be served at once. Tool call ids carry the marker:
 * no two turns share one.
 */
export const BENCH_FILE = 'bench-note.txt';
export const BENCH_COMMAND = `wc -l < ${BENCH_FILE}`;
export const BENCH_SUMMARY = 'Wrote the note and counted its lines.';

export const benchPrompt = (id: string) => `[bench ${id}] Write a two-line note to ${BENCH_FILE}, count its lines, then stop.`;
const MARKER = /\[bench ([a-z0-9-]+)\]/;

interface OpenAIMessage {
  role: string;
  content?: unknown;
}

const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));

export class JobTurnProvider {
  /** Requests that named no bench turn, or asked for a step past the third: the bench fails on any. */
  readonly anomalies: string[] = [];
  requests = 0;

  readonly respond = (request: RecordedRequest): FakeOpenAIReply => {
    this.requests++;
    const messages = (request.body?.messages ?? []) as OpenAIMessage[];
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const id = lastUser >= 0 ? MARKER.exec(textOf(messages[lastUser]!.content))?.[1] : undefined;
    if (!id) {
      this.anomalies.push(`a request without a bench marker: ${textOf(messages.at(-1)?.content).slice(0, 200)}`);
      return { error: { status: 400, message: 'jobs bench provider: no [bench <id>] marker in the last user message' } };
    }
    const step = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
    const usage = { prompt_tokens: 800 + 100 * step, completion_tokens: 40 };
    if (step === 0) return { content: 'Writing the note.', tool_calls: [{ id: `call_${id}_write`, name: 'write_file', arguments: { path: BENCH_FILE, content: `bench ${id}\nsecond line\n` } }], usage };
    if (step === 1) return { tool_calls: [{ id: `call_${id}_count`, name: 'shell_exec', arguments: { command: BENCH_COMMAND } }], usage };
    if (step > 2) this.anomalies.push(`turn ${id} asked for step ${step + 1} (three were scripted)`);
    return { content: BENCH_SUMMARY, usage };
  };
}
