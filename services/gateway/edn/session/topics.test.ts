import { TopicSubscription } from './topics';

// The Emacs client's topics (psi-rpc-default-topics, v0.1.2049): it does not ask for tool/delta.
const EMACS = ['assistant/delta', 'assistant/thinking-delta', 'assistant/message', 'tool/start', 'tool/executing', 'tool/update', 'tool/result', 'session/updated', 'session/resumed', 'session/rehydrated', 'context/updated', 'footer/updated', 'command-result', 'error', 'ui/dialog-requested', 'ui/frontend-action-requested', 'ui/widgets-updated', 'ui/widget-specs-updated', 'ui/status-updated', 'ui/notification'];

describe('TopicSubscription', () => {
  test('nothing subscribed: everything flows', () => {
    expect(new TopicSubscription().wants('tool/delta')).toBe(true);
  });

  test('the Emacs list: exactly those topics, sorted; unknown ones dropped', () => {
    const t = new TopicSubscription();
    expect(t.add([...EMACS, 'no/such-topic'])).toEqual([...EMACS].sort());
    expect(t.wants('tool/delta')).toBe(false);
    expect(t.wants('assistant/delta')).toBe(true);
    expect(t.wants('no/such-topic')).toBe(false);
  });

  test('unsubscribe removes; removing everything lets all flow again', () => {
    const t = new TopicSubscription();
    t.add(['error', 'assistant/delta']);
    expect(t.remove(['error'])).toEqual(['assistant/delta']);
    expect(t.wants('error')).toBe(false);
    expect(t.remove(undefined)).toEqual([]);
    expect(t.wants('error')).toBe(true);
  });
});
