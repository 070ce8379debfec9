import { IMAGES_ONLY_TEXT, promptContent, UnsupportedPrompt } from './prompt-text';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

test('text joins as it is; a link becomes a markdown link; embedded text is fenced under its URI', () => {
  expect(
    promptContent([
      { type: 'text', text: 'Look at ' },
      { type: 'resource_link', uri: 'file:///p/a.ts', name: 'a.ts' },
      { type: 'text', text: ' and this:' },
      { type: 'resource', resource: { uri: 'file:///p/b.md', text: 'has ``` inside' } },
    ]),
  ).toEqual({ text: 'Look at [@a.ts](file:///p/a.ts) and this:\nfile:///p/b.md:\n````\nhas ``` inside\n````\n', images: [] });
});

test('image blocks become the prompt images, in order, beside the text', () => {
  expect(
    promptContent([
      { type: 'text', text: 'What is in these?' },
      { type: 'image', data: PNG, mimeType: 'image/png' },
      { type: 'image', data: '/9j/4AAQ', mimeType: 'image/jpeg' },
    ]),
  ).toEqual({
    text: 'What is in these?',
    images: [
      { media_type: 'image/png', data: PNG },
      { media_type: 'image/jpeg', data: '/9j/4AAQ' },
    ],
  });
  // A strand prompt always has text: an image alone gets a stand-in.
  expect(promptContent([{ type: 'image', data: PNG, mimeType: 'image/png' }])).toEqual({ text: IMAGES_ONLY_TEXT, images: [{ media_type: 'image/png', data: PNG }] });
});

test('an image without data, audio and an empty prompt are refused', () => {
  expect(() => promptContent([{ type: 'image', data: '', uri: 'https://example.invalid/a.png', mimeType: 'image/png' }])).toThrow(UnsupportedPrompt);
  expect(() => promptContent([{ type: 'audio', data: 'AA', mimeType: 'audio/wav' }])).toThrow(/not audio/);
  expect(() => promptContent([{ type: 'text', text: '  ' }])).toThrow(/empty/);
});
