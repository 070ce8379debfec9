import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import type { ChatSession } from '../chat-session';

const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'];

/** The models this stack can run (`GET /api/models`: a local server's own models too), read once per page. */
let runnable: Promise<Array<{ ref: string; name: string }>> | undefined;
const runnableModels = () =>
  (runnable ??= api.models().then(
    (r) => r.models,
    () => {
      runnable = undefined;
      return [];
    },
  ));

const count = (n: number) => n.toLocaleString('en-US');

/**
 * The footer: the model (any `<provider>/<model>`, the models the stack can run offered), the reasoning level, and the session's totals — tokens, cost, and how full the context
 * window was at the last step. `locked`: the model and level are shown, not changed (a job's session runs the job's).
 */
export function StatusBar({ chat, locked = false }: { chat: ChatSession; locked?: boolean }) {
  const [offered, setOffered] = useState<Array<{ ref: string; name: string }>>([]);
  const [model, setModel] = useState('');
  useEffect(() => {
    void runnableModels().then(setOffered);
  }, []);
  const current = chat.session?.model ?? chat.stats?.model ?? '';
  useEffect(() => setModel(current), [current]);

  const stats = chat.stats;
  const extra = chat.view.usageSinceStats;
  const input = (stats?.usage.input ?? 0) + extra.input;
  const output = (stats?.usage.output ?? 0) + extra.output;
  const cost = (stats?.usage.cost_usd ?? 0) + extra.cost;
  return (
    <footer class="status-bar">
      <form
        class="picker"
        onSubmit={(e) => {
          e.preventDefault();
          if (model && model !== current) void chat.setModel(model);
        }}
      >
        <label for="model">Model</label>
        <input id="model" list="models" value={model} disabled={locked} spellcheck={false} onInput={(e) => setModel(e.currentTarget.value)} onChange={(e) => e.currentTarget.value !== current && void chat.setModel(e.currentTarget.value)} />
        <datalist id="models">
          {offered.map((m) => (
            <option key={m.ref} value={m.ref} label={m.name} />
          ))}
        </datalist>
      </form>
      <span class="picker">
        {/* "Reasoning": the level; "thinking" is the phase (the wire field stays thinking_level). */}
        <label for="thinking">Reasoning</label>
        <select id="thinking" disabled={locked} value={chat.session?.thinking_level ?? 'off'} onChange={(e) => void chat.setThinking(e.currentTarget.value)}>
          {THINKING_LEVELS.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </span>
      <span class="stats" aria-label="Usage">
        {count(input)} in · {count(output)} out · ${cost.toFixed(4)}
        {typeof stats?.budget?.max_cost_usd === 'number' && ` of $${stats.budget.max_cost_usd}`}
        {typeof stats?.budget?.max_tokens === 'number' && ` · ${count(input + output + stats.usage.cache_read + stats.usage.cache_write)} of ${count(stats.budget.max_tokens)} tokens`}
        {stats && stats.context.window > 0 && ` · context ${Math.round(stats.context.share * 100)}% of ${count(stats.context.window)}`}
      </span>
    </footer>
  );
}
