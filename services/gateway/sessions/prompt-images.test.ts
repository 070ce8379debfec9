import { ErrorCode } from '../../../contracts/errors';
import { MAX_PROMPT_IMAGE_BYTES, MAX_PROMPT_IMAGES } from '../../../contracts/prompt-images';
import { decodePromptImages } from './prompt-images';

/** A real 1×1 PNG (70 bytes). */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const b64 = (bytes: number[], size = bytes.length) => Buffer.concat([Buffer.from(bytes), Buffer.alloc(size - bytes.length)]).toString('base64');

const refused = (images: Array<{ media_type: string; data: string }>) => {
  try {
    decodePromptImages(images);
  } catch (err) {
    expect(err).toMatchObject({ code: ErrorCode.INVALID_REQUEST });
    return (err as Error).message;
  }
  throw new Error('accepted');
};

test('each supported type decodes to its bytes, in order', () => {
  const jpeg = b64([0xff, 0xd8, 0xff, 0xe0], 16);
  const gif = Buffer.from('GIF89a-rest').toString('base64');
  const webp = Buffer.from('RIFF\x10\x00\x00\x00WEBPVP8 ', 'latin1').toString('base64');
  const out = decodePromptImages([
    { media_type: 'image/png', data: PNG },
    { media_type: 'image/jpeg', data: jpeg },
    { media_type: 'image/gif', data: gif },
    { media_type: 'image/webp', data: webp },
  ]);
  expect(out.map((i) => i.mime)).toEqual(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
  expect(Buffer.from(out[0]!.bytes).toString('base64')).toBe(PNG);
  expect(out[0]!.bytes.byteLength).toBe(70);
  expect(out[1]!.bytes.byteLength).toBe(16);
});

test('a media type outside the four is refused, naming it and the ones taken', () => {
  expect(refused([{ media_type: 'image/svg+xml', data: PNG }])).toBe('image 1: media type "image/svg+xml" is not supported (use image/png, image/jpeg, image/gif, image/webp)');
});

test('base64 that is malformed, unpadded, wrapped or empty is refused', () => {
  for (const data of ['not base64!', PNG.slice(0, -2), `${PNG.slice(0, 40)}\n${PNG.slice(40)}`, '', 'iVBORw0KGgo*']) {
    expect(refused([{ media_type: 'image/png', data }])).toMatch(/^image 1: data is not valid base64/);
  }
});

test('bytes that are not of the declared type are refused (the provider would fail the turn later)', () => {
  expect(refused([{ media_type: 'image/png', data: PNG }, { media_type: 'image/jpeg', data: PNG }])).toBe('image 2: the bytes are not a image/jpeg image');
  expect(refused([{ media_type: 'image/webp', data: Buffer.from('RIFF\x10\x00\x00\x00WAVEfmt ', 'latin1').toString('base64') }])).toMatch(/not a image\/webp/);
});

test('an image over the per-image cap, too many images and too many bytes together are refused', () => {
  const big = b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], MAX_PROMPT_IMAGE_BYTES + 1);
  expect(refused([{ media_type: 'image/png', data: big }])).toBe(`image 1 is ${MAX_PROMPT_IMAGE_BYTES + 1} bytes: larger than 5 MiB (the cap per image)`);
  // Far over: refused from the length of its base64, before decoding it.
  expect(refused([{ media_type: 'image/png', data: 'A'.repeat(8 * 1024 * 1024) }])).toBe('image 1 is larger than 5 MiB (the cap per image)');
  const exactly = b64([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], MAX_PROMPT_IMAGE_BYTES);
  expect(decodePromptImages([{ media_type: 'image/png', data: exactly }])[0]!.bytes.byteLength).toBe(MAX_PROMPT_IMAGE_BYTES);
  const many = Array.from({ length: MAX_PROMPT_IMAGES + 1 }, () => ({ media_type: 'image/png', data: PNG }));
  expect(refused(many)).toBe(`a prompt takes at most ${MAX_PROMPT_IMAGES} images (got ${MAX_PROMPT_IMAGES + 1})`);
  expect(decodePromptImages(many.slice(1))).toHaveLength(MAX_PROMPT_IMAGES);
  expect(refused([{ media_type: 'image/png', data: exactly }, { media_type: 'image/png', data: exactly }])).toBe('the images of a prompt are at most 6 MiB together');
});
