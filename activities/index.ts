import { createSessionSpent } from './budget/session-spent';
import { createCheckpointActivities, type CheckpointWiring } from './checkpoints';
import { createCompactSession } from './compaction/compact-session';
import { withMcpTools } from './mcp/executor';
import type { SessionMcp } from './mcp/session-mcp';
import type { AgentEventPublisher, OutgoingEvent, PublishedSeqs } from './events/publisher';
import { createStreamModelStep, type StreamModelStepDeps } from './providers/stream-model-step';
import type { ProviderRegistry } from './providers/registry';
import { createSessionStoreActivities } from './store/session-activities';
import { routeSubagentEvents } from './events/subagent-routing';
import { createSubagentActivities } from './subagent/subagent-activities';
import { createPublishTurnState } from './events/turn-state-report';
import type { StorePort } from './store/store-port';
import type { ToolLedger } from './tool-calls/ledger';
import { createRecordToolResults } from './tool-calls/record-results';
import { createRunTool, type ToolExecutorPort } from './tool-calls/run-tool';
import { createRunUserCommand } from './tool-calls/user-command';

/** Everything activities touch, injected so tests pass fakes and the worker passes real clients. */
export interface ActivityDeps extends Pick<StreamModelStepDeps, 'price' | 'systemPrompt' | 'tools' | 'isReadOnly' | 'heartbeatMs' | 'stallMs' | 'cancels' | 'modelInfo' | 'publishedText' | 'images'> {
  store: StorePort;
  events: AgentEventPublisher;
  providers: ProviderRegistry;
  /** Runs the workspace tools (activities/tools); without it the model is offered no tools. */
  toolExecutor?: ToolExecutorPort;
  /** Where tool outcomes are recorded by call before their activity completes. */
  ledger: ToolLedger;
  now?: () => number;
  /** File checkpoints (docs/undo.md): taken around changing tools, reverted on request. */
  checkpoints?: CheckpointWiring;
  /** The sessions' MCP servers: their tools are offered to the model and `mcp__…` calls run on them. */
  mcp?: SessionMcp;
}

/**
 * Builds every activity the workflows call. Workflows import only the type of the returned object
 * (`Activities`), never this code.
 */
export function createActivities(given: ActivityDeps) {
  // A sub-agent's events go on its parent's stream, marked (docs/subagents.md).
  const deps: ActivityDeps = { ...given, events: routeSubagentEvents(given.events) };
  return {
    ...createSubagentActivities(deps),
    ...createSessionStoreActivities(deps.store, deps.now),
    streamModelStep: createStreamModelStep(deps),
    runTool: createRunTool({ ...deps, ...(deps.checkpoints ? { toolCheckpoints: deps.checkpoints.tools } : {}), tools: deps.mcp ? withMcpTools(deps.toolExecutor ?? noTools, deps.mcp) : (deps.toolExecutor ?? noTools) }),
    runUserCommand: createRunUserCommand({ ...deps, tools: deps.toolExecutor ?? noTools }),
    recordToolResults: createRecordToolResults(deps),
    ...createCheckpointActivities(deps.checkpoints, deps.events, deps.now),
    compactSession: createCompactSession(deps),
    /** A session's spent cost and tokens, read before a model step of a turn with a budget. */
    sessionSpent: createSessionSpent(deps.store),
    /** The fast path of an abort: tells the turn's running activities to stop now. */
    async announceTurnCancel(input: { session_id: string; turn_id: string }): Promise<void> {
      await deps.cancels?.announce(input.session_id, input.turn_id);
    },
    /** Publishes workflow-level events (state changes, turn start/finish) with deterministic ids. */
    async publishEvents(sessionId: string, events: OutgoingEvent[]): Promise<PublishedSeqs> {
      return (await deps.events.publish(sessionId, events)) ?? {};
    },
    /** A turn's state published, then reported to its session (events/turn-state-report.ts). */
    publishTurnState: createPublishTurnState(deps.events),
  };
}

export type Activities = ReturnType<typeof createActivities>;

/** A worker built without tools offers none to the model; a call that still names one is told so. */
const noTools: ToolExecutorPort = {
  async execute(name) {
    return { content: `unknown tool ${name}: this worker runs no tools`, is_error: true };
  },
};
