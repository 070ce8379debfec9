import type { SessionSettings } from '../../../contracts/session-settings';

/** What `PATCH …/settings` takes: given fields replace, the rest stay (the approval policy field by field). */
export interface SettingsPatch {
  auto_retry?: boolean;
  auto_compaction?: boolean;
  approval?: Partial<SessionSettings['approval']>;
  name?: string;
  /** Spending caps: given fields replace, null clears one (docs/budgets.md). */
  budget?: { max_cost_usd?: number | null; max_tokens?: number | null };
}

/**
 * The session's settings as the page shows them. A change shows at once (the checkbox stays where it
 * was clicked) and a read that started before the last change, or lands while one is in flight, is
 * dropped: the session announces every change (`agent.state`), so a re-read started by an earlier
 * change could otherwise answer after a later click and flip the box back under the user's hand.
 */
export class SettingsState {
  current: SessionSettings | undefined;
  private generation = 0;
  private inFlight = 0;

  /** Applies a read unless a change was made since it started or is still in flight. */
  async read(fetch: () => Promise<SessionSettings | undefined>): Promise<boolean> {
    const started = this.generation;
    const got = await fetch();
    if (got === undefined || started !== this.generation || this.inFlight > 0) return false;
    this.current = got;
    return true;
  }

  /** Shows `patch` at once, sends it, then shows what the session answered (or, on failure, reads again). */
  async change(patch: SettingsPatch, send: () => Promise<SessionSettings>, reread: () => Promise<SessionSettings | undefined>): Promise<void> {
    this.generation++;
    this.inFlight++;
    if (this.current) this.current = withPatch(this.current, patch);
    try {
      const answered = await send();
      this.generation++;
      this.current = answered;
    } catch (err) {
      this.generation++;
      this.current = (await reread().catch(() => undefined)) ?? this.current;
      throw err;
    } finally {
      this.inFlight--;
    }
  }
}

/** What the settings will be once `patch` is taken (the approval policy and the caps field by field, null clearing a cap). */
export function withPatch(settings: SessionSettings, patch: SettingsPatch): SessionSettings {
  const { approval, budget, ...rest } = patch;
  const next: SessionSettings = { ...settings, ...rest, approval: { ...settings.approval, ...(approval ?? {}) } };
  if (budget) {
    const caps = { ...(settings.budget ?? {}), ...budget };
    const kept = Object.fromEntries(Object.entries(caps).filter(([, v]) => v !== null));
    if (Object.keys(kept).length > 0) next.budget = kept;
    else delete next.budget;
  }
  return next;
}
