import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { jobIdOfSession, jobSessionId, type JobFacts } from '../../../core/job-calls';
import { sessionInAddress } from '../address';
import { api, whenUnauthorized, type ApiError, type ListedSession } from '../api';
import { ChatSession } from '../chat-session';
import { jobCalls, JobWatch } from '../job-watch';
import { useJob } from '../use-job';
import { tokenStore } from '../token';
import { ChatPane } from './chat-pane';
import { SessionList } from './session-list';
import { TokenPrompt } from './token-prompt';

/** How often the list of sessions is read again (sessions made elsewhere appear). */
const LIST_REFRESH_MS = 15_000;
/** How often the list of jobs is read again (a job started elsewhere appears, a status moves), while the tab is shown. */
const JOBS_REFRESH_MS = 5_000;

/**
 * The page: the caller's jobs and sessions on the left, the open session on the right (a job's
 * session with its job: job-watch.ts), and the token prompt over everything while the gateway answers 401.
 */
export function App() {
  const [needToken, setNeedToken] = useState(false);
  const [sessions, setSessions] = useState<ListedSession[] | undefined>(undefined);
  const [listProblem, setListProblem] = useState<string | undefined>(undefined);
  const [currentId, setCurrentId] = useState(sessionInAddress());
  const [chat, setChat] = useState<ChatSession | undefined>(undefined);
  const [jobs, setJobs] = useState<JobFacts[] | undefined>(undefined);
  const [job, setJob] = useState<JobWatch | undefined>(undefined);
  // Bumped after a token is given: everything is read again with it.
  const [authEpoch, setAuthEpoch] = useState(0);

  useEffect(() => whenUnauthorized(() => setNeedToken(true)), []);

  const reload = useCallback(async () => {
    try {
      setSessions(await api.sessions());
      setListProblem(undefined);
    } catch (err) {
      // A 401 is the token prompt's to say.
      setListProblem((err as ApiError).status === 401 ? undefined : (err as Error).message);
    }
  }, []);

  useEffect(() => {
    void reload();
    const timer = setInterval(() => void reload(), LIST_REFRESH_MS);
    return () => clearInterval(timer);
  }, [reload, authEpoch]);

  // A gateway that cannot list jobs (Temporal away) leaves the list as it was: the sessions still show.
  const reloadJobs = useCallback(async () => {
    try {
      setJobs(await jobCalls.list(200));
    } catch {
      // Read again at the next tick.
    }
  }, []);

  useEffect(() => {
    void reloadJobs();
    const timer = setInterval(() => {
      if (!document.hidden) void reloadJobs();
    }, JOBS_REFRESH_MS);
    return () => clearInterval(timer);
  }, [reloadJobs, authEpoch]);

  useEffect(() => {
    const onHash = () => setCurrentId(sessionInAddress());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  // A job's session (`job-<id>`): the job's status, escalations and report come from its own route.
  // When it ends, its conversation is read again from the store (its turns' ends are the job's, not
  // the stream's), and the list shows its new status.
  const chatRef = useRef<ChatSession | undefined>(undefined);
  useEffect(() => {
    const jobId = currentId && !needToken ? jobIdOfSession(currentId) : undefined;
    if (!jobId) return setJob(undefined);
    const watched = new JobWatch(jobId, () => {
      void chatRef.current?.reloadConversation();
      void reloadJobs();
    });
    setJob(watched);
    return () => watched.close();
  }, [currentId, authEpoch, needToken, reloadJobs]);
  useJob(job);
  // The session is opened once the job has made it (its workspace comes first), or once it is known that this is no job.
  const jobOfCurrent = job && currentId && jobSessionId(job.jobId) === currentId ? job : undefined;
  const waitForJob = !!currentId && jobIdOfSession(currentId) !== undefined && !(jobOfCurrent && (jobOfCurrent.notAJob || jobOfCurrent.sessionMade));

  useEffect(() => {
    if (!currentId || needToken || waitForJob) return setChat(undefined);
    const opened = new ChatSession(currentId, jobOfCurrent && !jobOfCurrent.notAJob ? jobOfCurrent : undefined);
    chatRef.current = opened;
    setChat(opened);
    return () => {
      chatRef.current = undefined;
      opened.close();
    };
    // jobOfCurrent is read when the session opens: it changes only with currentId and waitForJob.
  }, [currentId, authEpoch, needToken, waitForJob]);

  const current = sessions?.find((s) => s.session_id === currentId);
  useEffect(() => {
    document.title = current ? `${current.title || current.session_id} · strand` : 'strand';
  }, [current]);

  const tokenGiven = (token: string) => {
    tokenStore.set(token);
    setNeedToken(false);
    setAuthEpoch((e) => e + 1);
  };

  return (
    <div class="app">
      <a class="to-operator" href="/operator">Operator</a>
      <SessionList sessions={sessions} jobs={jobs} problem={listProblem} currentId={currentId} reload={reload} />
      <main class="main">
        {chat ? (
          <ChatPane key={chat.id} chat={chat} onSessionsChanged={reload} {...(jobOfCurrent ? { job: jobOfCurrent } : {})} />
        ) : waitForJob ? (
          <JobStarting job={jobOfCurrent} />
        ) : (
          <Welcome hasSessions={(sessions?.length ?? 0) > 0} />
        )}
      </main>
      {needToken && <TokenPrompt refused={tokenStore.get() !== undefined} onToken={tokenGiven} />}
    </div>
  );
}

/** A job's session before the job has made it: what the job's route says meanwhile. */
function JobStarting({ job }: { job: JobWatch | undefined }) {
  return (
    <div class="welcome">
      <h1>{job ? `Job ${job.jobId}` : 'Job'}</h1>
      <p role="status">{job?.problem ?? 'The job is preparing its workspace; its conversation shows once its session is made.'}</p>
    </div>
  );
}

function Welcome({ hasSessions }: { hasSessions: boolean }) {
  return (
    <div class="welcome">
      <h1>strand</h1>
      <p>{hasSessions ? 'Open a session on the left, or start a new one in a project.' : 'Start a session: type the path of a project folder on the left and press “New session”.'}</p>
      <p class="hint">Every turn runs as a durable workflow: close this tab, restart the gateway, and the answer is still there when you come back.</p>
    </div>
  );
}
