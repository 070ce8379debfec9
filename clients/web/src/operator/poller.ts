import type { ApiError } from '../../../core/api-client';
import { operatorApi, type ListedJob, type OperatorOverview, type RunningTurn } from './api';

/** How often the page reads the turns, the jobs and the overview again. */
const POLL_MS = 5_000;

export interface OperatorState {
  /** The running turns; undefined until the first answer. */
  turns: RunningTurn[] | undefined;
  /** The unattended jobs, running ones first; undefined until the first answer. */
  jobs: ListedJob[] | undefined;
  /** The history and failures; null while the gateway has none to give (no data yet), undefined before the first poll. */
  overview: OperatorOverview | null | undefined;
  /** The last poll got no answer from the gateway: the page says so and keeps polling. */
  unreachable: boolean;
  /** The gateway answered 401: tokens are configured and this tab has none, or a refused one. */
  needToken: boolean;
  /** The turns or the jobs could not be read for another reason (Temporal down: 503 UNAVAILABLE). */
  problem: string | undefined;
  /** When the last poll that reached the gateway ended. */
  updatedAt: number | undefined;
}

/**
 * Reads the turns, the jobs and the overview every POLL_MS while the tab is visible; a hidden tab polls
 * nothing (the timer is dropped) and polls at once when shown again. A poll that fails is answered
 * by the next one, so the page recovers by itself when the gateway is back. No drawing here: the
 * components subscribe to the state.
 */
export class OperatorPoller {
  private current: OperatorState = { turns: undefined, jobs: undefined, overview: undefined, unreachable: false, needToken: false, problem: undefined, updatedAt: undefined };
  private readonly listeners = new Set<(s: OperatorState) => void>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private polling: Promise<void> | undefined;
  private stopped = true;

  constructor(private readonly intervalMs = POLL_MS) {}

  get state(): OperatorState {
    return this.current;
  }

  subscribe(listener: (s: OperatorState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.stopped = false;
    document.addEventListener('visibilitychange', this.onVisibility);
    void this.poll();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    document.removeEventListener('visibilitychange', this.onVisibility);
  }

  /** After a token is given: poll again at once with it. */
  tokenGiven(): void {
    this.update({ needToken: false });
    void this.poll();
  }

  /** Reads everything now (after a cancel, say), unless a poll is under way; the next one follows POLL_MS later. */
  poll(): Promise<void> {
    this.polling ??= this.pollOnce().finally(() => {
      this.polling = undefined;
      this.schedule();
    });
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    clearTimeout(this.timer);
    const had = this.current.overview?.series;
    const since = had && had.length > 0 ? had[had.length - 1]!.at : undefined;
    const [turns, jobs, overview] = await Promise.allSettled([operatorApi.turns(), operatorApi.jobs(), operatorApi.overview(since)]);
    const failed = [turns, jobs, overview].flatMap((r) => (r.status === 'rejected' ? [r.reason as ApiError] : []));
    if (failed.some((e) => e.status === 401)) return this.update({ needToken: true, unreachable: false });
    if (failed.some((e) => e.status === 0)) return this.update({ unreachable: true });
    this.update({
      unreachable: false,
      updatedAt: Date.now(),
      turns: turns.status === 'fulfilled' ? turns.value : this.current.turns,
      jobs: jobs.status === 'fulfilled' ? jobs.value : this.current.jobs,
      problem: problemOf([turns, 'running turns'], [jobs, 'jobs']),
      // A gateway without the overview answers 400/404: no data yet, not an error of the page.
      overview: overview.status === 'fulfilled' ? withHistory(overview.value, had) : null,
    });
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.stopped || document.hidden || this.current.needToken) return;
    this.timer = setTimeout(() => void this.poll(), this.intervalMs);
  }

  private readonly onVisibility = () => {
    if (document.hidden) clearTimeout(this.timer);
    else void this.poll();
  };

  private update(patch: Partial<OperatorState>): void {
    this.current = { ...this.current, ...patch };
    for (const listener of this.listeners) listener(this.current);
  }
}

/** What could not be read (Temporal down: 503), named; undefined when everything was. */
function problemOf(...reads: Array<[PromiseSettledResult<unknown>, string]>): string | undefined {
  const lines = reads.flatMap(([read, what]) => (read.status === 'rejected' ? [`${what}: ${(read.reason as Error).message}`] : []));
  return lines.length > 0 ? lines.join('; ') : undefined;
}

/**
 * The answer to a `since` poll holds only the new points: they are appended to the ones the page has,
 * and what fell out of the window is dropped, so the charts show the same hour a whole read would.
 */
function withHistory(reply: OperatorOverview, had: OperatorOverview['series'] | undefined): OperatorOverview {
  if (!had || had.length === 0) return reply;
  const oldest = reply.generated_at - reply.window_s * 1000;
  const last = had[had.length - 1]!.at;
  const series = [...had.filter((p) => p.at > oldest), ...reply.series.filter((p) => p.at > last)];
  return { ...reply, series };
}
