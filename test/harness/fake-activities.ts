import type { Activities } from '../../activities';
import type { OutgoingEvent } from '../../activities/events/publisher';

/**
 * Activities for workflow tests: they record what the workflows asked for and let a test hold a model
 * step open (to keep a session busy) until it releases it. Only workflow logic is under test here.
 */
export function createRecordingActivities(opts: { lastTurn?: number } = {}) {
  const published: { sessionId: string; event: OutgoingEvent }[] = [];
  const userMessages: { entry_id: string; text: string }[] = [];
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => undefined;

  const activities: Activities = {
    async loadSessionContext() {
      return { last_turn: opts.lastTurn ?? 0 };
    },
    async recordUserMessage(input) {
      userMessages.push({ entry_id: input.entry_id, text: input.text });
      return { entry_id: input.entry_id };
    },
    async streamModelStep(input) {
      await gate;
      return { entry_id: `${input.turn_id}:s${input.step}:assistant`, stop_reason: 'end', text_length: 0 };
    },
    async publishEvents(sessionId, events) {
      for (const event of events) published.push({ sessionId, event });
    },
  };

  return {
    activities,
    published,
    userMessages,
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
