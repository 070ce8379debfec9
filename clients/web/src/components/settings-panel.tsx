import { useEffect, useState } from 'preact/hooks';
import type { ChatSession } from '../chat-session';

/**
 * The session's other settings (`GET`/`PATCH …/settings`): its name, the approval policy (plan mode, read-only
 * tools approved without asking, the tools a person answered "Always" for, how long a call waits for a
 * person and what happens then), auto-compaction and auto-retry. Each control changes one setting at
 * once; what shows is what the gateway answered, and a change made elsewhere shows after the session
 * announces it (chat-session.ts reads the settings again). Esc inside it closes it.
 */
const capText = (cap: number | null | undefined) => (typeof cap === 'number' ? String(cap) : '');

export function SettingsPanel({ chat, onClose, onRenamed }: { chat: ChatSession; onClose: () => void; onRenamed: () => Promise<void> }) {
  const s = chat.settings;
  const [name, setName] = useState(s?.name ?? '');
  const [timeout, setTimeoutText] = useState(String(s?.approval.timeout_s ?? ''));
  useEffect(() => setName(s?.name ?? ''), [s?.name]);
  useEffect(() => setTimeoutText(String(s?.approval.timeout_s ?? '')), [s?.approval.timeout_s]);
  const [usd, setUsd] = useState(capText(s?.budget?.max_cost_usd));
  const [tokens, setTokens] = useState(capText(s?.budget?.max_tokens));
  useEffect(() => setUsd(capText(s?.budget?.max_cost_usd)), [s?.budget?.max_cost_usd]);
  useEffect(() => setTokens(capText(s?.budget?.max_tokens)), [s?.budget?.max_tokens]);

  /** A cap field left: empty clears the cap, a number sets it, anything else goes back to what is set. */
  const saveCap = (field: 'max_cost_usd' | 'max_tokens', text: string, reset: (t: string) => void) => {
    const current = s?.budget?.[field] ?? null;
    const value = text.trim() === '' ? null : Number(text);
    if (!s || value === current) return;
    if (value !== null && (!Number.isFinite(value) || value < 0 || (field === 'max_tokens' && !Number.isInteger(value)))) return reset(capText(current));
    void chat.changeSettings({ budget: { [field]: value } });
  };
  const capKeys = (save: () => void) => (e: KeyboardEvent) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      save();
    }
  };

  const saveTimeout = () => {
    const seconds = Number(timeout);
    if (!s || seconds === s.approval.timeout_s) return;
    if (!Number.isInteger(seconds) || seconds <= 0) return setTimeoutText(String(s.approval.timeout_s));
    void chat.changeSettings({ approval: { timeout_s: seconds } });
  };

  return (
    <aside
      class="settings"
      id="session-settings"
      aria-label="Settings"
      onKeyDown={(e) => {
        // Esc closes the panel (and does not stop the running turn, as it does elsewhere on the page).
        if (e.key === 'Escape') {
          e.preventDefault();
          onClose();
        }
      }}
    >
      <header>
        <h2>Settings</h2>
        <button type="button" class="icon" aria-label="Close settings" onClick={onClose}>
          ✕
        </button>
      </header>
      {!s ? (
        <p class="hint">Reading the settings…</p>
      ) : (
        <>
          <form
            class="setting-row"
            onSubmit={(e) => {
              e.preventDefault();
              // The session list shows the name: read it again once the gateway took it.
              if (name.trim() !== (s.name ?? '')) void chat.changeSettings({ name: name.trim() }).then((ok) => (ok ? onRenamed() : undefined));
            }}
          >
            <label for="session-name">Session name</label>
            <input id="session-name" type="text" value={name} placeholder={chat.session?.title ?? ''} onInput={(e) => setName(e.currentTarget.value)} />
            <button type="submit" disabled={name.trim() === (s.name ?? '')}>
              Rename
            </button>
          </form>

          <fieldset>
            <legend>Approvals</legend>
            <label class="check">
              <input type="checkbox" checked={s.approval.plan_mode} onChange={(e) => void chat.changeSettings({ approval: { plan_mode: e.currentTarget.checked } })} />
              Plan mode
            </label>
            <p class="setting-note">The agent only reads, searches and plans: edits, deletions and commands are refused, not asked about. Switch it off to carry out the plan (from the next turn).</p>
            <label class="check">
              <input type="checkbox" checked={s.approval.auto_approve_readonly} onChange={(e) => void chat.changeSettings({ approval: { auto_approve_readonly: e.currentTarget.checked } })} />
              Auto-approve read-only tools
            </label>
            <p class="setting-note">read_file, list_files, search_files, git_status and git_diff run without asking.</p>
            <h3 id="always-allowed">Always allowed</h3>
            {s.approval.always_allow.length === 0 ? (
              <p class="setting-note">No tool yet: “Always” on an approval adds one.</p>
            ) : (
              <ul class="always-allowed" aria-labelledby="always-allowed">
                {s.approval.always_allow.map((tool) => (
                  <li key={tool}>
                    <code>{tool}</code>
                    <button
                      type="button"
                      class="link"
                      aria-label={`Remove ${tool}`}
                      onClick={() => void chat.changeSettings({ approval: { always_allow: s.approval.always_allow.filter((t) => t !== tool) } })}
                    >
                      remove
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <div class="setting-row">
              <label for="approval-timeout">Wait for a person (seconds)</label>
              <input
                id="approval-timeout"
                type="number"
                min={1}
                step={1}
                value={timeout}
                onInput={(e) => setTimeoutText(e.currentTarget.value)}
                onBlur={saveTimeout}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault();
                    saveTimeout();
                  }
                }}
              />
            </div>
            <div class="setting-row">
              <label for="timeout-decision">Then</label>
              <select id="timeout-decision" value={s.approval.default_decision} onChange={(e) => void chat.changeSettings({ approval: { default_decision: e.currentTarget.value as 'reject' | 'approve' } })}>
                <option value="reject">reject the call</option>
                <option value="approve">approve the call</option>
              </select>
            </div>
          </fieldset>

          <fieldset>
            <legend>Budget</legend>
            <div class="setting-row">
              <label for="budget-usd">Dollar cap (empty: none)</label>
              <input id="budget-usd" type="number" min={0} step="any" value={usd} onInput={(e) => setUsd(e.currentTarget.value)} onBlur={() => saveCap('max_cost_usd', usd, setUsd)} onKeyDown={capKeys(() => saveCap('max_cost_usd', usd, setUsd))} />
            </div>
            <div class="setting-row">
              <label for="budget-tokens">Token cap (empty: none)</label>
              <input id="budget-tokens" type="number" min={0} step={1} value={tokens} onInput={(e) => setTokens(e.currentTarget.value)} onBlur={() => saveCap('max_tokens', tokens, setTokens)} onKeyDown={capKeys(() => saveCap('max_tokens', tokens, setTokens))} />
            </div>
            <p class="setting-note">Before each model step the session's spending so far is checked: at a cap the turn waits until it is raised or the turn is stopped.</p>
          </fieldset>

          <fieldset>
            <legend>The model</legend>
            <label class="check">
              <input type="checkbox" checked={s.auto_compaction} onChange={(e) => void chat.changeSettings({ auto_compaction: e.currentTarget.checked })} />
              Auto-compaction
            </label>
            <p class="setting-note">Summarise the older conversation when the context window is 80 % full.</p>
            <label class="check">
              <input type="checkbox" checked={s.auto_retry} onChange={(e) => void chat.changeSettings({ auto_retry: e.currentTarget.checked })} />
              Auto-retry
            </label>
            <p class="setting-note">Try a model step again after a rate limit or an overloaded or dropped provider.</p>
          </fieldset>
        </>
      )}
    </aside>
  );
}
