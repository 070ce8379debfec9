import { useEffect, useMemo, useState } from 'preact/hooks';
import { TokenPrompt } from '../components/token-prompt';
import { tokenStore } from '../token';
import { operatorApi, type ListedJob, type RunningTurn } from './api';
import { Chart } from './chart';
import { allCharts } from './chart-data';
import { RecentFailures } from './failures';
import { clock, span } from './format';
import { Instances } from './instances';
import { OutLink } from './links';
import { OperatorPoller, type OperatorState } from './poller';
import { RetriesInProgress, TurnsTable } from './turns-table';
import { JobsTable } from './unattended-jobs';

/**
 * The operator view at `/operator` (docs/operator.md): the running turns across sessions with
 * Cancel, the turns retrying, the unattended jobs with Cancel and their reports, live charts of the cluster's recent history, the recent failures with
 * their classified reason, and which gateways and workers are up. Everything is polled (poller.ts).
 */
export function OperatorApp() {
  const poller = useMemo(() => new OperatorPoller(), []);
  const [state, setState] = useState<OperatorState>(poller.state);

  useEffect(() => {
    const unsubscribe = poller.subscribe(setState);
    poller.start();
    return () => {
      unsubscribe();
      poller.stop();
    };
  }, [poller]);

  const cancelTurn = async (turn: RunningTurn) => {
    const { status } = await operatorApi.cancelTurn(turn.job_id);
    await poller.poll();
    return status === 'cancelled' ? 'cancelling…' : 'it had already ended';
  };

  const cancelJob = async (job: ListedJob) => {
    const { status } = await operatorApi.cancelJob(job.job_id);
    await poller.poll();
    return status === 'cancel_requested' ? 'cancelling: it collects what was done, then reports' : 'it had already ended';
  };

  const tokenGiven = (token: string) => {
    tokenStore.set(token);
    poller.tokenGiven();
  };

  const overview = state.overview;
  const charts = useMemo(() => (overview && overview.series.length > 0 ? allCharts(overview) : undefined), [overview]);

  return (
    <div class="operator">
      <header class="op-header">
        <h1>strand — operator</h1>
        <nav aria-label="Pages">
          <a href="/">Chat</a>
          {overview?.temporal_ui && <OutLink href={overview.temporal_ui}>Temporal UI</OutLink>}
        </nav>
        <Connection state={state} />
      </header>
      <Instances overview={overview} />
      {state.problem && (
        <p class="problem" role="alert">
          {state.problem}
        </p>
      )}

      <section aria-labelledby="turns-title">
        <h2 id="turns-title">Running turns</h2>
        <TurnsTable jobs={state.turns} cancel={cancelTurn} />
      </section>

      <section aria-labelledby="retries-title">
        <h2 id="retries-title">Retries in progress</h2>
        <RetriesInProgress jobs={state.turns} />
      </section>

      <section aria-labelledby="jobs-title">
        <h2 id="jobs-title">Jobs</h2>
        <JobsTable jobs={state.jobs} cancel={cancelJob} />
      </section>

      <section aria-labelledby="charts-title">
        <h2 id="charts-title">Live charts{overview && overview.series.length > 0 ? <span class="hint"> · {span(overview.series.length * overview.interval_s)}, a point every {overview.interval_s} s</span> : null}</h2>
        {charts ? (
          <div class="charts">
            {charts.map((spec) => (
              <Chart key={spec.title} spec={spec} />
            ))}
          </div>
        ) : (
          <p class="hint">No data yet: {overview ? `the first point comes after one interval (${overview.interval_s} s).` : 'this gateway has no history to show.'}</p>
        )}
      </section>

      <section aria-labelledby="failures-title">
        <h2 id="failures-title">Recent failures</h2>
        <RecentFailures failures={overview?.failures} />
      </section>

      {state.needToken && <TokenPrompt refused={tokenStore.get() !== undefined} onToken={tokenGiven} />}
    </div>
  );
}

/** Live, or that the last poll got no answer (the next one is on its way). */
function Connection({ state }: { state: OperatorState }) {
  const text = state.unreachable ? 'gateway unreachable — retrying' : state.updatedAt ? `live · updated ${clock(state.updatedAt)}` : 'loading…';
  return (
    <span class={`connection${state.unreachable || !state.updatedAt ? '' : ' live'}`} role="status" aria-label="Connection">
      {text}
    </span>
  );
}
