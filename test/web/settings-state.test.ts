import { SettingsState, withPatch } from '../../clients/web/src/settings-state';
import type { SessionSettings } from '../../contracts/session-settings';

const base: SessionSettings = {
  model: 'scripted/echo',
  thinking_level: 'off',
  auto_retry: true,
  auto_compaction: true,
  approval: { auto_approve_readonly: true, always_allow: [], timeout_s: 600, default_decision: 'reject', plan_mode: true },
} as SessionSettings;
const plan = (s: SessionSettings | undefined) => s?.approval.plan_mode;
const deferred = <T>() => {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
};

/** The page's settings (clients/web/src/settings-state.ts): the race CI's web-chat-controls run hit, in order. */
test('a click shows at once; a read that started before it, or lands while it is in flight, does not flip it back', async () => {
  const state = new SettingsState();
  await state.read(async () => base);
  // The previous change's announcement started a re-read; it answers plan mode on, late.
  const staleRead = deferred<SessionSettings>();
  const reading = state.read(() => staleRead.promise);
  // The user unchecks Plan mode meanwhile.
  const sent = deferred<SessionSettings>();
  const changing = state.change({ approval: { plan_mode: false } }, () => sent.promise, async () => base);
  expect(plan(state.current)).toBe(false);
  staleRead.resolve(base);
  expect(await reading).toBe(false);
  expect(plan(state.current)).toBe(false);
  sent.resolve(withPatch(base, { approval: { plan_mode: false } }));
  await changing;
  expect(plan(state.current)).toBe(false);
  // A read started after the change applies.
  expect(await state.read(async () => withPatch(base, { name: 'renamed', approval: { plan_mode: false } }))).toBe(true);
  expect(state.current?.name).toBe('renamed');
});

test('a refused change shows what the session has again', async () => {
  const state = new SettingsState();
  await state.read(async () => base);
  await expect(state.change({ approval: { plan_mode: false } }, async () => Promise.reject(new Error('409')), async () => base)).rejects.toThrow('409');
  expect(plan(state.current)).toBe(true);
});

test('withPatch: the approval policy and the caps field by field, null clearing a cap', () => {
  const capped = withPatch(base, { budget: { max_cost_usd: 2, max_tokens: 1000 } });
  expect(capped.budget).toEqual({ max_cost_usd: 2, max_tokens: 1000 });
  expect(withPatch(capped, { budget: { max_tokens: null } }).budget).toEqual({ max_cost_usd: 2 });
  expect(withPatch(capped, { budget: { max_tokens: null, max_cost_usd: null } }).budget).toBeUndefined();
  expect(withPatch(base, { approval: { always_allow: ['write_file'] } }).approval).toMatchObject({ plan_mode: true, always_allow: ['write_file'] });
});
