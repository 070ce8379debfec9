import type { SessionConfigOption, SessionModeState, SessionUpdate } from '@agentclientprotocol/sdk';
import type { Logger } from '../../common/logger';
import type { JobService } from '../jobs/job-service';
import { availableModels } from '../sessions/model-list';
import type { SessionRef, SessionService } from '../sessions/session-service';
import { readTranscript } from '../sessions/session-transcript';
import { ACP_COMMANDS } from './commands';
import { AcpLiveSession, type AcpClientLink } from './live-session';
import { replayTranscript } from './replay';
import { configOptions, modeState } from './settings';

export interface OpenSessionDeps {
  sessions: SessionService;
  jobs: JobService;
  principal: string | undefined;
  log: Logger;
  client: AcpClientLink;
}

/** A live session, the settings the answer carries, and what lets its events go once the answer is out. */
export interface OpenedSession {
  live: AcpLiveSession;
  settings: { modes: SessionModeState; configOptions: SessionConfigOption[] };
  /** Call after the response was written: the commands update, then the session's events, go out. */
  afterAnswer(): void;
}

/** The model and thinking-level pickers of a session, as `config_option_update` and the answers carry them. */
export async function sessionConfigOptions(sessions: SessionService, model: string, thinking: string): Promise<SessionConfigOption[]> {
  return configOptions((await availableModels(sessions)).map((m) => ({ ref: m.ref, name: m.name })), { model, thinking_level: thinking });
}

/**
 * Opens an ACP session over a strand session (`session/new`, `session/load`). The event read opens
 * first, from the running turn's start, and the transcript is read after it, so every event is either
 * in the transcript or sent after it, once. With `replay` the transcript goes out as updates before
 * the caller answers; the live events wait until `afterAnswer`. `session` is the reference the
 * caller opened for this request (read and owner-checked once).
 */
export async function openSession(deps: OpenSessionDeps, session: SessionRef, replay: boolean): Promise<OpenedSession> {
  const { sessions, client } = deps;
  const sessionId = session.id;
  const subscription = await session.events();
  try {
    const [view, stats] = await Promise.all([session.describe(), session.stats()]);
    const stored = session.storedSettings();
    const settingsUpdate = async (model: string, thinking: string): Promise<SessionUpdate> => ({ sessionUpdate: 'config_option_update', configOptions: await sessionConfigOptions(sessions, model, thinking) });
    const live = new AcpLiveSession(deps, sessionId, view.project_path, settingsUpdate);
    live.seed(stats.usage, view.model, view.thinking_level);
    const release = live.hold();
    if (replay) {
      const shown = replayTranscript(await readTranscript(session), view.project_path, view.active_turn);
      live.stream.known(shown.known.steps, shown.known.toolResults, shown.known.prompts);
      for (const update of shown.updates) await client.update(sessionId, update);
    }
    live.start(subscription);
    return {
      live,
      settings: { modes: modeState(stored.approval), configOptions: await sessionConfigOptions(sessions, view.model, view.thinking_level) },
      afterAnswer: () =>
        setImmediate(() => {
          void client
            .update(sessionId, { sessionUpdate: 'available_commands_update', availableCommands: ACP_COMMANDS })
            .catch(() => undefined)
            .finally(release);
        }),
    };
  } catch (err) {
    subscription.stop();
    throw err;
  }
}
