import { ednPromptRequestId } from './prompt-request-id';

test('the same prompt frame to the same session derives the same request id; any other part makes another', () => {
  const id = ednPromptRequestId('sess_1', '7', 'reject', 'hello');
  expect(id).toBe(ednPromptRequestId('sess_1', '7', 'reject', 'hello'));
  expect(id).toMatch(/^edn:[A-Za-z0-9_-]{32}$/);
  const others = [
    ednPromptRequestId('sess_2', '7', 'reject', 'hello'),
    ednPromptRequestId('sess_1', '8', 'reject', 'hello'),
    ednPromptRequestId('sess_1', '7', 'queue', 'hello'),
    ednPromptRequestId('sess_1', '7', 'reject', 'hello!'),
    // The parts are kept apart: moving a character from one into the next is another prompt.
    ednPromptRequestId('sess_1', '7r', 'eject', 'hello'),
  ];
  expect(new Set([id, ...others]).size).toBe(6);
});
