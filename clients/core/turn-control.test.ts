import { entryIds } from '../../contracts/workflow-ids';
import type { ForkPoint } from './prompt-reader';
import { TurnControl, turnCallsOn, type TurnCalls, type TurnView } from './turn-control';

/** A view model that records what the controller did to it. */
class FakeView implements TurnView<string> {
  turn: string | undefined;
  phase = 'idle';
  readonly unknownPrompts = new Set<string>();
  readonly log: string[] = [];
  approvals: string[] = ['call_1', 'call_2'];
  prompted(turn: string, text: string, queued: boolean): void {
    this.log.push(`prompted ${turn} ${text}${queued ? ' (queued)' : ''}`);
  }
  promptText(turn: string, text: string): void {
    this.unknownPrompts.delete(turn);
    this.log.push(`prompt of ${turn}: ${text}`);
  }
  promptUnread(turn: string): void {
    this.log.push(`prompt of ${turn} unread`);
  }
  setApprovals(approvals: string[]): void {
    this.approvals = approvals;
  }
  dropApproval(toolCallId: string): void {
    this.approvals = this.approvals.filter((a) => a !== toolCallId);
  }
}

/** Calls that answer as a gateway would, recording each; `fail` makes the named call throw. */
function fakeCalls(opts: { turn?: string; queued?: boolean; fail?: string; forkPoints?: () => Promise<ForkPoint[]> } = {}) {
  const sent: string[] = [];
  const call = async (name: string, detail = '') => {
    sent.push(`${name}${detail}`);
    if (opts.fail === name) throw new Error(`${name} refused`);
  };
  const calls: TurnCalls<string, string> = {
    prompt: async (text, requestId, attachments) => {
      await call('prompt', ` ${text} ${requestId}${attachments.length ? ` +${attachments.join(',')}` : ''}`);
      return { turn_id: opts.turn ?? 't1', queued: opts.queued ?? false };
    },
    steer: (text) => call('steer', ` ${text}`),
    interrupt: () => call('interrupt'),
    approve: (id, always) => call('approve', ` ${id}${always ? ' always' : ''}`),
    reject: (id, reason) => call('reject', ` ${id} "${reason}"`),
    approvals: async () => {
      await call('approvals');
      return ['call_9'];
    },
    forkPoints: opts.forkPoints ?? (async () => []),
  };
  return { calls, sent };
}

function control(view: FakeView, calls: TurnCalls<string, string>) {
  const problems: Array<string | undefined> = [];
  let changes = 0;
  let ids = 0;
  const turns = new TurnControl<string, string, FakeView>({
    calls,
    view: () => view,
    changed: () => void changes++,
    report: (p) => problems.push(p),
    requestId: () => `req_${++ids}`,
  });
  return { turns, problems, changes: () => changes };
}

test('a prompt sent while idle starts its turn; each send has a fresh request id', async () => {
  const view = new FakeView();
  const { calls, sent } = fakeCalls({ turn: 't1' });
  const { turns, changes } = control(view, calls);
  await expect(turns.send('hello')).resolves.toBe(true);
  await turns.send('again');
  expect(sent).toEqual(['prompt hello req_1', 'prompt again req_2']);
  expect(view.log).toEqual(['prompted t1 hello', 'prompted t1 again']);
  expect(changes()).toBe(2);
});

test('a prompt sent while a turn runs shows as queued: said so by the gateway, or started as another turn than the running one', async () => {
  const view = new FakeView();
  view.phase = 'working'; // running before the turn's first event named it
  const queued = control(view, fakeCalls({ turn: 't2', queued: true }).calls);
  await queued.turns.send('follow-up');
  view.turn = 't1';
  const other = control(view, fakeCalls({ turn: 't2', queued: false }).calls);
  await other.turns.send('next');
  view.turn = 't2';
  const same = control(view, fakeCalls({ turn: 't2', queued: false }).calls);
  await same.turns.send('mine');
  expect(view.log).toEqual(['prompted t2 follow-up (queued)', 'prompted t2 next (queued)', 'prompted t2 mine']);
});

test('attachments go with the prompt, and the accepted hook runs after the view knows the turn', async () => {
  const view = new FakeView();
  const { calls, sent } = fakeCalls();
  const { turns } = control(view, calls);
  await turns.send('look', ['img1', 'img2'], () => view.log.push('accepted'));
  expect(sent).toEqual(['prompt look req_1 +img1,img2']);
  expect(view.log).toEqual(['prompted t1 look', 'accepted']);
});

test('a refused action is reported as "what: message" and resolves false; the next action clears the report first', async () => {
  const view = new FakeView();
  const { turns, problems } = control(view, fakeCalls({ fail: 'prompt' }).calls);
  await expect(turns.send('hello')).resolves.toBe(false);
  expect(problems).toEqual([undefined, 'the prompt was not sent: prompt refused']);
  expect(view.log).toEqual([]);
  await expect(turns.steer('faster', 'the steering text was not sent')).resolves.toBe(true);
  expect(problems).toEqual([undefined, 'the prompt was not sent: prompt refused', undefined]);
  const stopping = control(view, fakeCalls({ fail: 'interrupt' }).calls);
  await expect(stopping.turns.interrupt()).resolves.toBe(false);
  expect(stopping.problems.at(-1)).toBe('the turn was not stopped: interrupt refused');
});

test('an answered approval leaves the view at once; a rejection sends its reason trimmed', async () => {
  const view = new FakeView();
  const { calls, sent } = fakeCalls();
  const { turns } = control(view, calls);
  const approving = turns.approve('call_1', true);
  expect(view.approvals).toEqual(['call_2']);
  await approving;
  await turns.reject('call_2', '  not that file  ');
  expect(view.approvals).toEqual([]);
  expect(sent).toEqual(['approve call_1 always', 'reject call_2 "not that file"']);
});

test('a turn waiting for approval has its approvals read; other events read nothing', async () => {
  const view = new FakeView();
  const { calls, sent } = fakeCalls();
  const { turns } = control(view, calls);
  turns.applied({ type: 'assistant.delta' });
  turns.applied({ type: 'agent.state', state: 'working' });
  expect(sent).toEqual([]);
  turns.applied({ type: 'agent.state', state: 'waiting_approval' });
  await new Promise((r) => setImmediate(r));
  expect(sent).toEqual(['approvals']);
  expect(view.approvals).toEqual(['call_9']);
});

test('the prompt of a turn started elsewhere is read from the fork points; none is read after close', async () => {
  const view = new FakeView();
  let reads = 0;
  const { calls } = fakeCalls({
    forkPoints: async () => {
      reads += 1;
      return [{ entry_id: entryIds.user('t7'), text: 'from another tab' }];
    },
  });
  const { turns } = control(view, calls);
  view.unknownPrompts.add('t7');
  turns.applied({ type: 'turn.started' });
  await new Promise((r) => setImmediate(r));
  expect(view.log).toEqual(['prompt of t7: from another tab']);
  turns.close();
  view.unknownPrompts.add('t8');
  turns.applied({ type: 'turn.started' });
  await new Promise((r) => setImmediate(r));
  expect(reads).toBe(1);
});

test('turnCallsOn names the session in every call and keeps the client its own prompt', async () => {
  const seen: string[] = [];
  const api = {
    steer: async (id: string, text: string) => void seen.push(`steer ${id} ${text}`),
    interrupt: async (id: string) => void seen.push(`interrupt ${id}`),
    approve: async (id: string, tc: string, always: boolean) => void seen.push(`approve ${id} ${tc} ${always}`),
    reject: async (id: string, tc: string, reason: string) => void seen.push(`reject ${id} ${tc} "${reason}"`),
    approvals: async (id: string) => (seen.push(`approvals ${id}`), ['a']),
    forkPoints: async (id: string) => (seen.push(`forkPoints ${id}`), []),
  };
  const calls = turnCallsOn<string, never>(api, 's1', async (text) => (seen.push(`prompt ${text}`), { turn_id: 't1' }));
  await calls.prompt('hi', 'req', []);
  await calls.steer('go');
  await calls.interrupt();
  await calls.approve('c1', true);
  await calls.reject('c2', '');
  await calls.approvals();
  await calls.forkPoints();
  expect(seen).toEqual(['prompt hi', 'steer s1 go', 'interrupt s1', 'approve s1 c1 true', 'reject s1 c2 ""', 'approvals s1', 'forkPoints s1']);
});
