import { promptText, UnsupportedPrompt } from './prompt-text';

test('text joins as it is; a link becomes a markdown link; embedded text is fenced under its URI', () => {
  expect(
    promptText([
      { type: 'text', text: 'Look at ' },
      { type: 'resource_link', uri: 'file:///p/a.ts', name: 'a.ts' },
      { type: 'text', text: ' and this:' },
      { type: 'resource', resource: { uri: 'file:///p/b.md', text: 'has ``` inside' } },
    ]),
  ).toBe('Look at [@a.ts](file:///p/a.ts) and this:\nfile:///p/b.md:\n````\nhas ``` inside\n````\n');
});

test('images, audio and an empty prompt are refused', () => {
  expect(() => promptText([{ type: 'image', data: 'AA', mimeType: 'image/png' }])).toThrow(UnsupportedPrompt);
  expect(() => promptText([{ type: 'audio', data: 'AA', mimeType: 'audio/wav' }])).toThrow(/not audio/);
  expect(() => promptText([{ type: 'text', text: '  ' }])).toThrow(/empty/);
});
