import { Context } from '@temporalio/activity';
import type { Activities } from '../../activities';
import type { OutgoingEvent } from '../../activities/events/publisher';
import type { BeginTurnInput } from '../../activities/store/session-activities';
import { createPublishTurnState } from '../../activities/events/turn-state-report';
import { sessionSettingsSchema, type SeenRequest, type SessionRecord } from '../../contracts/session-settings';

/**
 * Activities for workflow tests: they keep the session record in memory the way the store keeps it
 * (so idle completion and re-creation can be tested), record what the workflows asked for, and let a
 * test hold a model step open (to keep a session busy) until it releases it. Only workflow logic is
 * under test here; the real activities have their own tests against a real store.
 */
export function createRecordingActivities(
  opts: {
    lastTurn?: number;
    requests?: SeenRequest[];
    steps?: Array<Array<{ id: string; name: string; requires_approval: boolean }>>;
    /** Thrown by the next model steps, in order (e.g. a provider failure). */
    failures?: unknown[];
    /** What the session has spent, as the budget check reads it (default nothing). */
    spent?: { cost_usd: number; tokens: number };
    /** What each step reports as its context size (of a 1,000-token window). */
    contextTokens?: number;
    /** The first attempt of each tool hangs without heartbeats. */
    hangFirstToolAttempt?: boolean;
  } = {},
) {
  const compactions: Array<{ reason: string; compaction_id: string; instructions?: string }> = [];
  const toolRuns: string[] = [];
  const toolResults: Array<{ step: number; calls: Array<{ id: string; disposition: string; reason?: string }> }> = [];
  const scriptedSteps = [...(opts.steps ?? [])];
  const published: { sessionId: string; event: OutgoingEvent }[] = [];
  const userMessages: { entry_id: string; text: string }[] = [];
  const modelSteps: { turn_id: string; step: number; attempt: number }[] = [];
  const stored = { last_turn: opts.lastTurn ?? 0, requests: opts.requests ?? [] };
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => undefined;

  function publish(sessionId: string, events: OutgoingEvent[]) {
    for (const event of events) published.push({ sessionId, event });
    return { first_seq: published.length - events.length + 1, last_seq: published.length };
  }

  const activities: Activities = {
    async loadSessionRecord(): Promise<SessionRecord> {
      return { project_path: '/p', settings: sessionSettingsSchema.parse({ model: 'scripted/echo' }), last_turn: stored.last_turn, requests: [...stored.requests] };
    },
    async sessionSpent() {
      return opts.spent ?? { cost_usd: 0, tokens: 0 };
    },
    async startSubagent() {
      // Subagents run on the real stack only (test/e2e/subagents.test.ts).
      return { started: false as const };
    },
    async finishSubagent() {
      return { is_error: true };
    },
    async persistSessionRecord(input) {
      stored.last_turn = input.last_turn;
      stored.requests = [...input.requests];
    },
    async runUserCommand(input) {
      userMessages.push({ entry_id: input.id, text: `$ ${input.command}` });
      return { output: `ran ${input.command}`, exit_code: 0, cancelled: false, truncated: false };
    },
    async recordSteering(input) {
      userMessages.push({ entry_id: `${input.turn_id}:s${input.step}:steer:${input.index}`, text: input.text });
      return { entry_id: `${input.turn_id}:s${input.step}:steer:${input.index}` };
    },
    async streamModelStep(input) {
      if (input.begin) {
        stored.last_turn = Math.max(stored.last_turn, input.begin.last_turn);
        stored.requests = [...input.begin.requests];
        if (!userMessages.some((m) => m.entry_id === `${input.turn_id}:user`)) userMessages.push({ entry_id: `${input.turn_id}:user`, text: input.begin.text });
        // The turn's first state when its session left announcing it to the turn (beginTurn), published once.
        const { state } = input.begin as BeginTurnInput;
        if (state && !published.some((p) => p.event.id === `${input.turn_id}:running`)) published.push({ sessionId: input.session_id, event: { id: `${input.turn_id}:running`, turn_id: input.turn_id, event: state } });
        published.push({ sessionId: input.session_id, event: { id: `${input.turn_id}:started`, event: { type: 'turn.started', turn_id: input.turn_id, prompt: input.begin.text } } });
      }
      modelSteps.push({ turn_id: input.turn_id, step: input.step, attempt: input.attempt });
      await gate;
      const failure = opts.failures?.shift();
      if (failure) throw failure;
      const calls = scriptedSteps.shift() ?? [];
      return { entry_id: `${input.turn_id}:s${input.step}:assistant`, stop_reason: calls.length ? 'function_call' : 'end', tool_calls: calls, context_tokens: opts.contextTokens ?? 100, context_window: 1_000 };
    },
    async announceTurnCancel() {},
    async compactSession(input) {
      compactions.push({ reason: input.reason, compaction_id: input.compaction_id, ...(input.instructions ? { instructions: input.instructions } : {}) });
      return { compacted: true, summary: 'summary', tokens_before: 900, tokens_after: 200 };
    },
    async runTool(input) {
      toolRuns.push(input.call_id);
      if (opts.hangFirstToolAttempt && Context.current().info.attempt === 1) {
        // Never heartbeats: Temporal must time it out and run it again. (Ends when the worker shuts down.)
        const signal = Context.current().cancellationSignal;
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 120_000);
          signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
      }
      return { is_error: false };
    },
    async recordToolResults(input) {
      toolResults.push({ step: input.step, calls: input.calls.map((c) => ({ id: c.id, disposition: c.disposition, ...(c.reason ? { reason: c.reason } : {}) })) });
      return { entry_ids: input.calls.map((c) => `${input.turn_id}:s${input.step}:tool:${c.id}`) };
    },
    // Checkpoints (docs/undo.md) live on a real worker's disk; workflow tests without one see none.
    async listCheckpoints() {
      return [];
    },
    async revertCheckpoints() {
      return { files: [], entry_ids: [], refused: 'no_checkpoint' as const };
    },
    async publishEvents(sessionId, events) {
      return publish(sessionId, events);
    },
    // The real activity over the recorder: the report reaches the session through the worker's client.
    publishTurnState: createPublishTurnState({ publish: async (sessionId, events) => publish(sessionId, events) }),
  };

  return {
    activities,
    published,
    userMessages,
    modelSteps,
    toolRuns,
    toolResults,
    compactions,
    stored,
    /** Makes model steps wait until `release()` is called. */
    hold() {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
    release() {
      open();
    },
  };
}
