import type { Logger } from '../../../common/logger';
import type { JobService } from '../../jobs/job-service';
import type { SessionRef, SessionService } from '../../sessions/session-service';
import type { EdnMap } from '../edn-value';
import type { EdnPeer, EdnRequest } from '../protocol';
import type { FocusFeed } from './feed';
import type { SessionFacts } from './session-facts';
import type { TopicSubscription } from './topics';

/** A picker this connection asked the client to show (`ui/frontend-action-requested`), by its request id. */
export interface PendingAction {
  action: string;
  sessionId: string;
}

/** Which snapshot events an op sends, in this order. */
export type Snapshot = 'session' | 'footer' | 'context';

/**
 * What an op handler gets: the request, the connection's state and the moves only the connection
 * makes (focus, feed, snapshots). Handlers translate to SessionService / SessionRef calls and back; they keep no
 * state of their own.
 */
export interface OpContext {
  readonly req: EdnRequest;
  readonly params: EdnMap;
  readonly sessions: SessionService;
  /** Unattended jobs (docs/jobs.md), read and acted on for this connection's principal. */
  readonly jobs: JobService;
  readonly log: Logger;
  readonly peer: EdnPeer;
  readonly principal: string | undefined;
  readonly topics: TopicSubscription;
  /** Approval dialogs shown on this connection: dialog id (the tool call id) → session. */
  readonly dialogs: Map<string, string>;
  readonly actions: Map<string, PendingAction>;
  /**
   * Session `sessionId` for this op: read and its owner checked once per request (an op is one client
   * action), however many commands the op sends it. SESSION_NOT_FOUND for an unknown or another's.
   */
  session(sessionId: string): Promise<SessionRef>;
  /** The session the op targets: its `:session-id` param, else the focus (created on first need). */
  target(): Promise<string>;
  /** The focus session (created on first need). */
  focus(): Promise<string>;
  facts(sessionId: string): SessionFacts;
  /** Sends an event caused by this request (topic-filtered, tagged with the request id). */
  emit(topic: string, data: EdnMap): void;
  snapshots(sessionId: string, which: readonly Snapshot[]): Promise<void>;
  /**
   * Moves the focus to `sessionId` and sends `session/resumed`, `session/rehydrated` (its transcript),
   * `session/updated`, `footer/updated`, `context/updated`; then the session's events flow, from its
   * running turn's start (what the transcript holds is not repeated). With `since` the events after
   * that session sequence follow as they were (no `session/resumed`: the client keeps its view).
   */
  navigate(sessionId: string, since?: number): Promise<void>;
  /** Moves the focus without a rehydration (`subscribe` naming another session). */
  refocus(sessionId: string): Promise<void>;
  /** The feed, when `sessionId` is the focus. */
  feedOf(sessionId: string): FocusFeed | undefined;
  /** Holds the focus feed's events (if `sessionId` is the focus) until the response is out. */
  holdEvents(sessionId: string): () => void;
}

export type OpHandler = (ctx: OpContext) => Promise<EdnMap>;
