import type { RecordedRequest } from '../../test/harness/fake-anthropic-server';
import type { FakeOpenAIReply } from '../../test/harness/fake-openai-server';

/**
 * What the fake OpenAI-format provider answers in a chaos trial, and the ground truth of what it
 * streamed. Each prompt carries a marker `[chaos <trial> p<n>]` (the trial's n-th prompt). The answer
 * depends only on the marker in the last user message and on how many assistant messages follow it
 * (the step), so a step retried after a fault is streamed again word for word, and the truth per
 * (prompt, step) is one text.
 */
export type TrialMode = 'stream' | 'tool';
export type PromptLabel = 'p1' | 'p2';

export interface TrialPlan {
  id: string;
  mode: TrialMode;
  /** Words of the long streamed answer (mode stream: step 0; mode tool: step 1, after the tool). */
  words: number;
  /** Pause before each streamed frame. */
  frameDelayMs: number;
  /** The shell command of mode tool (runs a few seconds, printing as it goes). */
  command: string;
  callId: string;
}

/** What the provider sent for one step: its text, and how many times it was asked (1 + retries). */
export interface StepTruth {
  text: string;
  requests: number;
}

export const promptMarker = (trial: string, prompt: PromptLabel) => `[chaos ${trial} ${prompt}]`;
const MARKER = /\[chaos (\S+) (p\d+)\]/;

/** `n` distinct words, so that a lost or a doubled delta shows as a missing or a repeated word. */
const wordsText = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}w${i}`).join(' ') + '.';

interface OpenAIMessage {
  role: string;
  content?: unknown;
}

const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content ?? ''));

export class ChaosProvider {
  private readonly plans = new Map<string, TrialPlan>();
  private readonly truths = new Map<string, StepTruth>();
  /** Requests no trial claims (no or an unknown marker), and steps answered with two texts. */
  readonly anomalies: string[] = [];

  register(plan: TrialPlan): void {
    this.plans.set(plan.id, plan);
  }

  /** What the provider streamed for prompt `prompt` of trial `id`, step by step (index = step). */
  truth(id: string, prompt: PromptLabel): StepTruth[] {
    const out: StepTruth[] = [];
    for (let step = 0; this.truths.has(`${id}/${prompt}/${step}`); step++) out.push(this.truths.get(`${id}/${prompt}/${step}`)!);
    return out;
  }

  /** The fake server's `respond`: the scripted answer to this request, noted as the truth. */
  readonly respond = (request: RecordedRequest): FakeOpenAIReply => {
    const messages = (request.body?.messages ?? []) as OpenAIMessage[];
    const lastUser = messages.map((m) => m.role).lastIndexOf('user');
    const marker = lastUser >= 0 ? MARKER.exec(textOf(messages[lastUser]!.content)) : null;
    const plan = marker ? this.plans.get(marker[1]!) : undefined;
    if (!marker || !plan) {
      this.anomalies.push(`a request without a known trial marker: ${textOf(messages[messages.length - 1]?.content).slice(0, 200)}`);
      return { error: { status: 400, message: 'chaos provider: no known trial marker in the last user message' } };
    }
    const prompt = marker[2] as PromptLabel;
    const step = messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
    const reply = replyFor(plan, prompt, step);
    const key = `${plan.id}/${prompt}/${step}`;
    const text = typeof reply.content === 'string' ? reply.content : '';
    const seen = this.truths.get(key);
    if (seen && seen.text !== text) this.anomalies.push(`step ${key} was answered with two different texts`);
    this.truths.set(key, { text, requests: (seen?.requests ?? 0) + 1 });
    return reply;
  };
}

function replyFor(plan: TrialPlan, prompt: PromptLabel, step: number): FakeOpenAIReply {
  const slow = { delay_ms: plan.frameDelayMs };
  // The next prompt after the faulted turn: short, and nothing is done to it.
  if (prompt === 'p2') return { content: `Second turn of ${plan.id} done.`, ...slow };
  if (plan.mode === 'stream') return { content: wordsText(plan.words, 's0'), ...slow };
  if (step === 0) {
    return { content: 'Running it now.', tool_calls: [{ id: plan.callId, name: 'shell_exec', arguments: { command: plan.command, timeout_s: 60 } }], ...slow };
  }
  return { content: wordsText(plan.words, `s${step}`), ...slow };
}
