import { encodeEdn } from '../../services/gateway/edn/codec';
import { kw, type EdnMap } from '../../services/gateway/edn/edn-value';
import { dataOf, kindOf, topicOf } from './edn-session-client';
import { bootstrap, idleAfter, SLOW_WORDS, useEdnStack } from './edn-session-fixture';

/**
 * A client that lost its connection resends what it had not seen answered: the same EDN prompt frame,
 * byte for byte, on a new connection. The gateway derives the prompt's request id from the session,
 * the frame's `:id`, the op and the text (edn/session/prompt-request-id.ts), so the resend is answered
 * with the turn the first frame started, while it runs and after it ended, and no second turn starts.
 * The same text under another `:id` is a new prompt.
 */
const edn = useEdnStack('edn-prompt-resend');

const promptFrame = (id: string, message: string) => `${encodeEdn({ id, kind: kw('request'), op: 'prompt', params: { message } })}\n`;

test('the same prompt frame sent again after a reconnect, during its turn and after it, starts one turn', async () => {
  const first = await edn.tcp();
  await bootstrap(first);
  const sid = await edn.focusNewSession(first);
  await first.request('set_model', { provider: 'scripted', 'model-id': 'edn-slow' });
  const frame = promptFrame('emacs-7', 'say it once');
  const sentAt = first.frames.length;
  first.sendRaw(frame);
  expect(await first.answer('emacs-7')).toMatchObject({ ok: true, data: { accepted: true } });
  await first.waitFor((f) => topicOf(f) === 'assistant/delta' && first.events('assistant/delta', sentAt).length >= 3, 30_000, sentAt);
  // The connection drops mid-turn; the client comes back and resends the frame it is unsure about.
  first.close();
  await first.closed;

  const again = await edn.tcp();
  await bootstrap(again);
  await again.request('switch_session', { 'session-id': sid });
  const resentAt = again.frames.length;
  again.sendRaw(frame);
  // Not `request/session-not-idle`: the running turn is this prompt's own.
  const answer = await again.answer('emacs-7');
  expect([kindOf(answer), dataOf(answer)]).toEqual(['response', { accepted: true }]);
  const message = await again.waitFor((f) => topicOf(f) === 'assistant/message' && dataOf(f)['session-id'] === sid, 30_000, resentAt);
  expect(dataOf(message).text).toBe(`${SLOW_WORDS.join('')}the end.`);
  await idleAfter(again, again.index(message));

  // Resent once more after the turn ended: answered, and the session stays idle.
  await again.request('set_model', { provider: 'scripted', 'model-id': 'echo' });
  again.sendRaw(frame);
  const late = await again.answer('emacs-7');
  expect([kindOf(late), dataOf(late)]).toEqual(['response', { accepted: true }]);
  // The same text under another :id is a new prompt: its turn is the next one, and nothing came between.
  const nextAt = again.frames.length;
  again.sendRaw(promptFrame('emacs-8', 'say it once'));
  expect(kindOf(await again.answer('emacs-8'))).toBe('response');
  const echoed = await again.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, nextAt);
  expect(dataOf(echoed).text).toBe('You said: say it once');
  await idleAfter(again, again.index(echoed));

  const messages = (await again.request('get_messages')).messages as EdnMap[];
  expect(messages.map((m) => [m.role, m.text])).toEqual([
    ['user', 'say it once'],
    ['assistant', `${SLOW_WORDS.join('')}the end.`],
    ['user', 'say it once'],
    ['assistant', 'You said: say it once'],
  ]);
});
