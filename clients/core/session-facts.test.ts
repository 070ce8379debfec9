import { refreshSessionFacts, type SessionFactsApi, type SessionFactsView } from './session-facts';

/** A view model that records what the refresh did to it. */
class FakeView implements SessionFactsView<string> {
  readonly log: string[] = [];
  statsRead(): void {
    this.log.push('stats read');
  }
  setApprovals(approvals: string[]): void {
    this.log.push(`approvals ${approvals.join(',')}`);
  }
}

/** Reads that answer for session `id`, recording each; `fail` makes the named read throw. */
function fakeApi(fail?: string) {
  const read: string[] = [];
  const answer = async <T>(name: string, id: string, value: T): Promise<T> => {
    read.push(`${name} ${id}`);
    if (fail === name) throw new Error(`${name} refused`);
    return value;
  };
  const api: SessionFactsApi<{ model: string }, { cost: number }, string> = {
    session: (id) => answer('session', id, { model: 'm1' }),
    stats: (id) => answer('stats', id, { cost: 3 }),
    approvals: (id) => answer('approvals', id, ['call_1']),
  };
  return { api, read };
}

function setup(options: { fail?: string; current?: () => boolean; alongside?: () => Promise<unknown> } = {}) {
  const { api, read } = fakeApi(options.fail);
  const view = new FakeView();
  const kept: unknown[] = [];
  let changes = 0;
  const refresh = () =>
    refreshSessionFacts({
      api,
      id: 's1',
      view: () => view,
      keep: (session, stats) => kept.push({ session, stats }),
      changed: () => changes++,
      current: options.current,
      alongside: options.alongside,
    });
  return { refresh, read, view, kept, changes: () => changes };
}

describe('refreshSessionFacts', () => {
  it('reads the session, its totals and its approvals, keeps them, updates the view and says something changed', async () => {
    const s = setup();
    await s.refresh();
    expect(s.read.sort()).toEqual(['approvals s1', 'session s1', 'stats s1']);
    expect(s.kept).toEqual([{ session: { model: 'm1' }, stats: { cost: 3 } }]);
    expect(s.view.log).toEqual(['stats read', 'approvals call_1']);
    expect(s.changes()).toBe(1);
  });

  it('keeps what was shown when a read fails, without throwing', async () => {
    const s = setup({ fail: 'stats' });
    await expect(s.refresh()).resolves.toBeUndefined();
    expect(s.kept).toEqual([]);
    expect(s.view.log).toEqual([]);
    expect(s.changes()).toBe(1);
  });

  it('drops the answers for a session that is no longer open, and draws nothing', async () => {
    const s = setup({ current: () => false });
    await s.refresh();
    expect(s.kept).toEqual([]);
    expect(s.view.log).toEqual([]);
    expect(s.changes()).toBe(0);
  });

  it('waits for what is read alongside (the page settings), whose failure keeps what was shown', async () => {
    const order: string[] = [];
    const ok = setup({ alongside: async () => void order.push('settings') });
    await ok.refresh();
    expect(order).toEqual(['settings']);
    expect(ok.view.log).toEqual(['stats read', 'approvals call_1']);

    const failing = setup({ alongside: () => Promise.reject(new Error('settings refused')) });
    await failing.refresh();
    expect(failing.kept).toEqual([]);
    expect(failing.changes()).toBe(1);
  });
});
