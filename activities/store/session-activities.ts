import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../contracts/failures';
import { readSessionRecord } from '../../contracts/session-record';
import { RUNTIME_KEYS, boundSeenRequests, type SeenRequest, type SessionRecord, type SessionSettings } from '../../contracts/session-settings';
import { entryIds, turnStartStateId } from '../../contracts/workflow-ids';
import type { PromptImageRef } from '../../contracts/prompt-images';
import type { ContentBlock } from '../../contracts/session-store/messages';
import type { AgentEvent } from '../../contracts/agent-events';
import type { AgentEventPublisher } from '../events/publisher';
import type { StorePort } from './store-port';
import { storeCall } from './store-failures';

export interface BeginTurnInput {
  session_id: string;
  turn_id: string;
  text: string;
  /** The prompt's images, already in the image bucket: the user message keeps their references. */
  images?: PromptImageRef[];
  /** The session's counter and seen request ids, persisted before the turn's first entry exists. */
  last_turn: number;
  requests: SeenRequest[];
  /**
   * The turn's first `session.state`, when its session left announcing the turn to it
   * (`announces_start`): published right before `turn.started`, in the same publish.
   */
  state?: AgentEvent;
}

export interface RecordSteeringInput {
  session_id: string;
  turn_id: string;
  step: number;
  index: number;
  text: string;
}

/**
 * A turn's first act, done by its first model step (so the turn's first workflow task schedules the
 * model at once), in two parts a retry repeats harmlessly. `recorded`: the prompt as the user message
 * (idempotent on its entry id) and the turn announced (its first `session.state` when the session left
 * that to the turn, then `turn.started`) — what the step's first delta waits for (a client told the
 * answer can read the question; `turn.started` comes first). `counted`: the turn
 * counter and the request ids persisted (so a re-created workflow never hands the number out again nor
 * starts a retried prompt twice), which only a session workflow re-created from the store reads, never
 * while this turn runs: the step waits for it before it records or announces its answer, not before
 * it streams (the store takes a session's writes one at a time, and the prompt goes first).
 */
export function beginTurn(store: StorePort, events: AgentEventPublisher, input: BeginTurnInput, now: () => number = Date.now): { recorded: Promise<void>; counted: Promise<void> } {
  const recorded = Promise.all([
    storeCall(`recording the prompt of ${input.turn_id}`, () =>
      store.append({
        session_id: input.session_id,
        entry_id: entryIds.user(input.turn_id),
        message: { role: 'user', content: userContent(input), timestamp: now() },
        origin: { turn: input.turn_id },
      }),
    ),
    events.publish(input.session_id, [
      ...(input.state ? [{ id: turnStartStateId(input.turn_id), turn_id: input.turn_id, event: input.state }] : []),
      { id: `${input.turn_id}:started`, turn_id: input.turn_id, event: { type: 'turn.started', turn_id: input.turn_id, prompt: input.text } },
    ]),
  ]).then(() => undefined);
  return { recorded, counted: persistTurnCounter(store, input) };
}

/** The `counted` part of beginTurn: the session's counter and seen request ids as of this turn. */
export async function persistTurnCounter(store: StorePort, input: BeginTurnInput): Promise<void> {
  await storeCall(`starting turn ${input.turn_id}`, () =>
    store.setMeta({
      session_id: input.session_id,
      metadata_patch: { [RUNTIME_KEYS.lastTurn]: input.last_turn, [RUNTIME_KEYS.requests]: boundSeenRequests(input.requests) },
    }),
  );
}

/**
 * The prompt as the user message holds it: its text, then one image block per image. An image block
 * keeps the reference and size and an empty `data` (contracts/session-store/messages.ts): the bytes
 * would not fit a store request, and the model step loads them from the bucket.
 */
export function userContent(input: Pick<BeginTurnInput, 'text' | 'images'>): ContentBlock[] {
  return [{ type: 'text', text: input.text }, ...(input.images ?? []).map((i): ContentBlock => ({ type: 'image', data: '', mime: i.mime, ref: i.ref, bytes: i.bytes }))];
}

/** Store-backed activities of the session and turn workflows (all idempotent). */
export function createSessionStoreActivities(store: StorePort, now: () => number = Date.now) {
  async function requireMeta(sessionId: string) {
    const got = await storeCall(`reading session ${sessionId}`, () => store.get({ session_id: sessionId }));
    if (!got) throw ApplicationFailure.nonRetryable(`session ${sessionId} does not exist in the store`, FailureType.SESSION_NOT_FOUND);
    return got.meta;
  }

  return {
    /**
     * What a fresh session workflow run needs: its project, settings, the turn counter and the
     * request ids it has already answered, decoded as the gateway decodes them for a dormant session.
     */
    async loadSessionRecord(sessionId: string): Promise<SessionRecord> {
      return readSessionRecord((await requireMeta(sessionId)).metadata);
    },

    /**
     * Persists the counter and seen request ids (when a run idles out; turns persist them as they
     * start), and the settings when they changed.
     */
    async persistSessionRecord(input: { session_id: string; last_turn: number; requests: SeenRequest[]; settings?: SessionSettings }): Promise<void> {
      await storeCall(`saving session ${input.session_id}`, () =>
        store.setMeta({
          session_id: input.session_id,
          metadata_patch: {
            [RUNTIME_KEYS.lastTurn]: input.last_turn,
            [RUNTIME_KEYS.requests]: boundSeenRequests(input.requests),
            ...(input.settings ? { [RUNTIME_KEYS.settings]: input.settings } : {}),
          },
        }),
      );
    },

    /** Records a steering message as a user message the next model step sees. */
    async recordSteering(input: RecordSteeringInput): Promise<{ entry_id: string }> {
      const entry_id = entryIds.steer(input.turn_id, input.step, input.index);
      await storeCall(`recording steering for ${input.turn_id}`, () =>
        store.append({
          session_id: input.session_id,
          entry_id,
          message: { role: 'user', content: [{ type: 'text', text: input.text }], timestamp: now() },
          origin: { turn: input.turn_id, step: input.step },
        }),
      );
      return { entry_id };
    },
  };
}
