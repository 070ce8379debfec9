import type { z } from 'zod';
import type * as R from '../../../../contracts/http-replies';
import type * as J from '../../../../contracts/job-http';
import type { JobService } from '../../jobs/job-service';
import type { RunningTurns } from '../../sessions/running-turns';
import type { SessionRef, SessionService } from '../../sessions/session-service';
import type { Transcripts } from '../../transcripts/transcripts';

/**
 * Compile-time proof that what the services hand the HTTP routes fits the reply schemas the document
 * publishes: a service type that grows a field the schema lacks (or changes one) fails `tsc` here,
 * before the conformance test would see the answer. Nothing imports this file; the type checker
 * reads it as part of the project.
 */
type Keys<T> = T extends readonly (infer E)[] ? keyof E : keyof T;
/** Assignable (types fit), no key the document lacks (TypeScript alone allows extra keys), and not `never`. */
type Fits<Actual, Documented> = [Actual] extends [never]
  ? false
  : [Actual] extends [Documented]
    ? [Exclude<Keys<Actual>, Keys<Documented>>] extends [never]
      ? true
      : false
    : false;
type Holds<T extends true> = T;
type Out<S extends z.ZodType> = z.output<S>;
type ReturnedBy<S, K extends keyof S> = S[K] extends (...args: never[]) => Promise<infer T> ? T : never;
type Returned<K extends keyof SessionRef> = ReturnedBy<SessionRef, K>;

export type ReplyTypesFit = [
  Holds<Fits<Returned<'describe'>, Out<typeof R.sessionViewSchema>>>,
  Holds<Fits<ReturnedBy<SessionService, 'list'>, Out<typeof R.sessionListSchema>>>,
  Holds<Fits<ReturnedBy<RunningTurns, 'get'>, Out<typeof R.turnSchema>>>,
  Holds<Fits<ReturnedBy<RunningTurns, 'cancel'>, Out<typeof R.turnCancelledSchema>>>,
  Holds<Fits<ReturnedBy<JobService, 'get'>, Out<typeof J.jobViewSchema>>>,
  Holds<Fits<ReturnedBy<JobService, 'list'>, Out<typeof J.jobListSchema>['jobs']>>,
  Holds<Fits<ReturnedBy<JobService, 'cancel'>, Out<typeof J.jobCancelReplySchema>>>,
  Holds<Fits<ReturnedBy<JobService, 'answer'>, Out<typeof J.escalationAnsweredSchema>>>,
  Holds<Fits<ReturnedBy<JobService, 'start'>['job'], Out<typeof J.jobStartedSchema>>>,
  Holds<Fits<Returned<'stats'>, Out<typeof R.sessionStatsSchema>>>,
  Holds<Fits<Returned<'forkPoints'>, Out<typeof R.forkPointsSchema>['messages']>>,
  Holds<Fits<Returned<'lastAssistantText'>, Out<typeof R.lastAssistantTextSchema>>>,
  Holds<Fits<Returned<'abortRetry'>, Out<typeof R.abortRetryReplySchema>>>,
  Holds<Fits<Returned<'fork'>, Out<typeof R.sessionForkedSchema>>>,
  Holds<Fits<Returned<'messages'>, Out<typeof R.messagesPageSchema>>>,
  Holds<Fits<Returned<'pendingApprovals'>, Out<typeof R.pendingApprovalsSchema>['approvals']>>,
  Holds<Fits<Returned<'compact'>, Out<typeof R.compactedSchema>>>,
  Holds<Fits<Omit<Returned<'updateSettings'>, 'notice'>, Out<typeof R.settingsReplySchema>>>,
  Holds<Fits<Awaited<ReturnType<Transcripts['list']>>, Out<typeof R.transcriptListSchema>>>,
];
