import type { SessionView } from '../../sessions/session-service';
import type { TranscriptItem } from '../../sessions/session-transcript';
import type { EdnMap, EdnValue } from '../edn-value';
import { iso, jsonText, messageToEdn, textOfBlocks } from '../session/content';
import type { SessionFacts } from '../session/session-facts';
import { modelInfo, modelList } from '../session/models';
import type { JobDigest } from '../../jobs/job-digest';
import type { EqlResolvers } from './engine';
import { modelParts } from '../../../../contracts/models';

/** What a query is answered from: the target session's facts, the slash commands strand knows, the principal's jobs. */
interface EqlContext {
  facts: SessionFacts;
  commands: ReadonlyArray<{ name: string; description: string }>;
  /** The connection's principal's jobs, as `list_jobs` answers them (JSON shapes). */
  jobs(): Promise<readonly JobDigest[]>;
}

type R = EqlResolvers<EqlContext>;

const view = (c: EqlContext) => c.facts.view();
const psiPhase = (v: SessionView) => (v.agent_state === 'retrying' || v.agent_state === 'compacting' ? v.agent_state : v.active_turn ? 'streaming' : 'idle');
const split = (ref: string) => {
  const { provider, model } = modelParts(ref);
  return { provider, id: model };
};

/** Tool calls of the transcript paired with their results (psi's tool lifecycle summaries). */
function toolSummaries(items: TranscriptItem[]): EdnMap[] {
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const { message: m } of items) if (m.role === 'function_result') results.set(m.function_call_id, { text: textOfBlocks(m.content), isError: m.is_error });
  const out: EdnMap[] = [];
  for (const { message: m } of items) {
    if (m.role !== 'assistant') continue;
    for (const b of m.content) {
      if (b.type !== 'function_call') continue;
      const r = results.get(b.id);
      out.push({
        'psi.tool-lifecycle.summary/tool-id': b.id,
        'psi.tool-lifecycle.summary/tool-name': b.function_id,
        'psi.tool-lifecycle.summary/arguments': jsonText(b.arguments ?? {}),
        'psi.tool-lifecycle.summary/parsed-args': null,
        'psi.tool-lifecycle.summary/result-text': r?.text ?? '',
        'psi.tool-lifecycle.summary/is-error': r?.isError ?? false,
        'psi.tool-lifecycle.summary/completed?': r !== undefined,
      });
    }
  }
  return out;
}

/** The running turn's tool calls that have no result yet. */
async function openToolCalls(c: EqlContext): Promise<EdnMap[]> {
  const v = await view(c);
  if (!v.active_turn) return [];
  const items = await c.facts.transcript();
  const done = new Set(items.flatMap(({ message: m }) => (m.role === 'function_result' ? [m.function_call_id] : [])));
  return items
    .filter((i) => i.turn === v.active_turn && i.message.role === 'assistant')
    .flatMap((i) => (i.message.role === 'assistant' ? i.message.content : []))
    .flatMap((b) => (b.type === 'function_call' && !done.has(b.id) ? [{ id: b.id, name: b.function_id, arguments: jsonText(b.arguments ?? {}) }] : []));
}

const usage = (key: 'input' | 'output' | 'cache_read' | 'cache_write' | 'cost_usd') => async (c: EqlContext) => (await c.facts.stats()).usage[key];

const SUMMARY_KEYS = ['tool-id', 'tool-name', 'arguments', 'parsed-args', 'result-text', 'is-error', 'completed?'].map((k) => `psi.tool-lifecycle.summary/${k}`);
const SESSION_INFO_KEYS = ['id', 'path', 'name', 'worktree-path', 'cwd', 'first-message', 'modified', 'created', 'message-count'].map((k) => `psi.session-info/${k}`);

/** psi's attributes the Emacs client asks for (and the ones its footer and header show). */
const psiAttributes: R = {
  'psi.agent-session/session-id': { resolve: (c) => c.facts.sessionId },
  'psi.agent-session/session-name': { resolve: async (c) => (await c.facts.name()) ?? null },
  'psi.agent-session/session-display-name': { resolve: async (c) => (await c.facts.name()) ?? (await view(c)).title },
  'psi.agent-session/phase': { resolve: async (c) => psiPhase(await view(c)) },
  'psi.agent-session/is-streaming': { resolve: async (c) => (await view(c)).active_turn !== null },
  'psi.agent-session/is-compacting': { resolve: async (c) => (await view(c)).agent_state === 'compacting' },
  'psi.agent-session/model': { resolve: async (c) => ({ ...split((await view(c)).model), reasoning: modelInfo(c.facts.sessions.models, (await view(c)).model).reasoning }) },
  'psi.agent-session/model-provider': { resolve: async (c) => split((await view(c)).model).provider },
  'psi.agent-session/model-id': { resolve: async (c) => split((await view(c)).model).id },
  'psi.agent-session/model-reasoning': { resolve: async (c) => modelInfo(c.facts.sessions.models, (await view(c)).model).reasoning },
  'psi.agent-session/thinking-level': { resolve: async (c) => (await view(c)).thinking_level },
  'psi.agent-session/worktree-path': { resolve: async (c) => (await view(c)).project_path },
  'psi.agent-session/cwd': { resolve: async (c) => (await view(c)).project_path },
  'psi.agent-session/message-count': { resolve: async (c) => (await view(c)).message_count },
  'psi.agent-session/pending-message-count': { resolve: async (c) => (await view(c)).queue_length },
  'psi.agent-session/messages': { resolve: async (c) => (await c.facts.transcript()).map((i) => messageToEdn(i.message, i.entry_id)) },
  'psi.agent-session/prompt-templates': { resolve: () => [] },
  'psi.agent-session/model-catalog': { resolve: (c) => modelList(c.facts.sessions), children: ['provider', 'id', 'name', 'reasoning', 'context-window'] },
  'psi.agent-session/authenticated-providers': { resolve: (c) => c.facts.sessions.providers() },
  'psi.agent-session/usage-input': { resolve: usage('input') },
  'psi.agent-session/usage-output': { resolve: usage('output') },
  'psi.agent-session/usage-cache-read': { resolve: usage('cache_read') },
  'psi.agent-session/usage-cache-write': { resolve: usage('cache_write') },
  'psi.agent-session/usage-cost-total': { resolve: usage('cost_usd') },
  'psi.agent-session/context-tokens': { resolve: async (c) => (await c.facts.stats()).context.tokens },
  'psi.agent-session/context-window': { resolve: async (c) => (await c.facts.stats()).context.window },
  'psi.agent-session/context-fraction': { resolve: async (c) => (await c.facts.stats()).context.share },
  'psi.agent-session/auto-compaction-enabled': { resolve: async (c) => (await c.facts.settings())?.auto_compaction ?? true },
  'psi.agent-session/auto-retry-enabled': { resolve: async (c) => (await c.facts.settings())?.auto_retry ?? true },
  'psi.agent-session/tool-lifecycle-summaries': { resolve: async (c) => toolSummaries(await c.facts.transcript()), children: SUMMARY_KEYS },
  'psi.agent-session/builtin-command-specs': { resolve: (c) => c.commands.map((x) => ({ name: x.name, description: x.description })), children: ['name', 'description'] },
  // strand has no extensions, prompt templates or widgets: the answers are honest empties.
  'psi.extension/command-names': { resolve: () => [] },
  'psi.ui/widget-specs': { resolve: () => [] },
  'psi.ui/widgets': { resolve: () => [] },
  'psi.ui/statuses': { resolve: () => [] },
  'psi.turn/phase': { resolve: async (c) => psiPhase(await view(c)) },
  'psi.turn/is-streaming': { resolve: async (c) => (await view(c)).active_turn !== null },
  // The running step's text lives in the event stream, not the store: a client gets it replayed as deltas.
  'psi.turn/text': { resolve: () => '' },
  'psi.turn/tool-calls': { resolve: openToolCalls, children: ['id', 'name', 'arguments'] },
  'psi.turn/tool-call-count': { resolve: async (c) => (await openToolCalls(c)).length },
  'psi.session/list': {
    resolve: async (c) => {
      const page = await c.facts.sessions.list({ limit: 200 }, c.facts.principal);
      return page.sessions.map((s) => ({
        'psi.session-info/id': s.session_id,
        // strand sessions have no file: the path a client resumes by is the session id.
        'psi.session-info/path': s.session_id,
        'psi.session-info/name': s.title,
        'psi.session-info/worktree-path': s.project_path,
        'psi.session-info/cwd': s.project_path,
        'psi.session-info/first-message': null,
        'psi.session-info/modified': iso(s.updated_at),
        'psi.session-info/created': iso(s.started_at),
        'psi.session-info/message-count': s.message_count,
      }));
    },
    children: SESSION_INFO_KEYS,
  },
};

const JOB_KEYS = ['job-id', 'status', 'title', 'project-path', 'model', 'session-id', 'owner', 'started-at', 'closed-at', 'escalations-waiting'];

/** strand's own attributes (`:strand.session/*`, and the principal's jobs as `:strand.job/list`). */
const strandAttributes: R = {
  'strand.job/list': {
    resolve: async (c) =>
      (await c.jobs()).map((j) => ({
        'job-id': j.job_id,
        status: j.status,
        title: j.title,
        'project-path': j.project_path,
        model: j.model,
        'session-id': j.session_id,
        owner: j.owner ?? null,
        'started-at': iso(j.started_at),
        'closed-at': j.closed_at === null ? null : iso(j.closed_at),
        'escalations-waiting': j.escalations_waiting,
      })),
    children: JOB_KEYS,
  },
  'strand.session/id': { resolve: (c) => c.facts.sessionId },
  'strand.session/title': { resolve: async (c) => (await view(c)).title },
  'strand.session/name': { resolve: async (c) => (await c.facts.name()) ?? null },
  'strand.session/status': { resolve: async (c) => (await view(c)).status },
  'strand.session/phase': { resolve: async (c) => (await view(c)).agent_state },
  'strand.session/model': { resolve: async (c) => (await view(c)).model },
  'strand.session/thinking-level': { resolve: async (c) => (await view(c)).thinking_level },
  'strand.session/project-path': { resolve: async (c) => (await view(c)).project_path },
  'strand.session/message-count': { resolve: async (c) => (await view(c)).message_count },
  'strand.session/queue-length': { resolve: async (c) => (await view(c)).queue_length },
  'strand.session/active-turn': { resolve: async (c) => (await view(c)).active_turn },
  'strand.session/created-at': { resolve: async (c) => iso((await view(c)).started_at) },
  'strand.session/updated-at': { resolve: async (c) => iso((await view(c)).updated_at) },
  'strand.session/cost': { resolve: usage('cost_usd') },
  'strand.session/tokens': {
    resolve: async (c) => {
      const u = (await c.facts.stats()).usage;
      return { input: u.input, output: u.output, 'cache-read': u.cache_read, 'cache-write': u.cache_write };
    },
    children: ['input', 'output', 'cache-read', 'cache-write'],
  },
  'strand.session/context': {
    resolve: async (c) => {
      const x = (await c.facts.stats()).context;
      return { tokens: x.tokens, window: x.window, share: x.share };
    },
    children: ['tokens', 'window', 'share'],
  },
  'strand.session/steps': { resolve: async (c) => (await c.facts.stats()).steps },
  'strand.session/turns': { resolve: async (c) => (await c.facts.stats()).turns },
  'strand.session/auto-retry': { resolve: async (c) => (await c.facts.settings())?.auto_retry ?? true },
  'strand.session/auto-compaction': { resolve: async (c) => (await c.facts.settings())?.auto_compaction ?? true },
  'strand.session/pending-approvals': {
    resolve: async (c): Promise<EdnValue> => (await c.facts.pendingApprovals()).map((p) => ({ 'tool-call-id': p.tool_call_id, tool: p.tool, arguments: jsonText(p.params ?? {}) })),
    children: ['tool-call-id', 'tool', 'arguments'],
  },
};

export const eqlResolvers: R = { ...psiAttributes, ...strandAttributes };
