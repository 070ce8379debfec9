import { useCallback, useEffect, useState } from 'preact/hooks';
import { sessionInAddress } from '../address';
import { api, whenUnauthorized, type ApiError, type ListedSession } from '../api';
import { ChatSession } from '../chat-session';
import { tokenStore } from '../token';
import { ChatPane } from './chat-pane';
import { SessionList } from './session-list';
import { TokenPrompt } from './token-prompt';

/** How often the list of sessions is read again (sessions made elsewhere appear). */
const LIST_REFRESH_MS = 15_000;

/**
 * The page: the caller's sessions by project on the left, the open session on the right, and the
 * token prompt over everything while the gateway answers 401.
 */
export function App() {
  const [needToken, setNeedToken] = useState(false);
  const [sessions, setSessions] = useState<ListedSession[] | undefined>(undefined);
  const [listProblem, setListProblem] = useState<string | undefined>(undefined);
  const [currentId, setCurrentId] = useState(sessionInAddress());
  const [chat, setChat] = useState<ChatSession | undefined>(undefined);
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

  useEffect(() => {
    const onHash = () => setCurrentId(sessionInAddress());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);

  useEffect(() => {
    if (!currentId || needToken) return setChat(undefined);
    const opened = new ChatSession(currentId);
    setChat(opened);
    return () => opened.close();
  }, [currentId, authEpoch, needToken]);

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
      <SessionList sessions={sessions} problem={listProblem} currentId={currentId} reload={reload} />
      <main class="main">{chat ? <ChatPane key={chat.id} chat={chat} onSessionsChanged={reload} /> : <Welcome hasSessions={(sessions?.length ?? 0) > 0} />}</main>
      {needToken && <TokenPrompt refused={tokenStore.get() !== undefined} onToken={tokenGiven} />}
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
