import { backspace, bufferOf, bufferText, deleteForward, deleteWordBack, down, emptyBuffer, insert, left, newline, PromptHistory, right, up } from './input-buffer';

test('typing, newlines and a multi-line paste keep the cursor after what was inserted', () => {
  let b = insert(emptyBuffer, 'helo');
  b = left(left(b));
  b = insert(b, 'l');
  expect(bufferText(b)).toBe('hello');
  expect(b.col).toBe(3);
  b = newline(b);
  expect(b.lines).toEqual(['hel', 'lo']);
  expect([b.row, b.col]).toEqual([1, 0]);
  b = insert(b, 'one\r\ntwo\tx\x07');
  expect(b.lines).toEqual(['hel', 'one', 'two  xlo']);
  expect([b.row, b.col]).toEqual([2, 6]);
});

test('backspace and delete join lines at their edges; nothing happens at the ends of the text', () => {
  let b = bufferOf('ab\ncd');
  b = left(left(b));
  expect([b.row, b.col]).toEqual([1, 0]);
  b = backspace(b);
  expect(b.lines).toEqual(['abcd']);
  expect(b.col).toBe(2);
  expect(deleteForward(bufferOf('abcd'))).toEqual(bufferOf('abcd'));
  expect(backspace(emptyBuffer)).toEqual(emptyBuffer);
  b = deleteForward({ lines: ['ab', 'cd'], row: 0, col: 2 });
  expect(b.lines).toEqual(['abcd']);
  expect(bufferText(deleteWordBack(bufferOf('git commit  ')))).toBe('git ');
});

test('up and down move between lines and say when they are at the edge (for history)', () => {
  const b = bufferOf('long first line\nx');
  expect(down(b)).toBeUndefined();
  const u = up(b)!;
  expect([u.row, u.col]).toEqual([0, 1]);
  expect(up(u)).toBeUndefined();
  expect(right(left(b))).toEqual(b);
});

test('history walks back from the draft and forward to it again', () => {
  const h = new PromptHistory(['first', 'second']);
  expect(h.back('draft')).toBe('second');
  expect(h.back('second')).toBe('first');
  expect(h.back('first')).toBeUndefined();
  expect(h.forward()).toBe('second');
  expect(h.forward()).toBe('draft');
  expect(h.forward()).toBeUndefined();
  h.add('third');
  h.add('third');
  expect(h.back('')).toBe('third');
  expect(h.back('third')).toBe('second');
});
