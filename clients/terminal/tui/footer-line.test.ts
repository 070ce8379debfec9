import { footerLine, type FooterFacts } from './footer-line';

/** A busy session: a turn waiting for an approval with details, a queue, both caps, a long model name, reconnecting. */
const busy: FooterFacts = {
  phase: { text: '⠋ waiting approval', details: 'edit_file src/components/settings-panel.tsx' },
  queued: 2,
  model: 'anthropic/claude-sonnet-4-5-20250929',
  reasoning: 'high',
  tokensIn: 123_456,
  tokensOut: 7_890,
  spent: '$0.4213 of $5',
  tokenCap: '131k of 200k tokens',
  context: 'context 62% of 200k',
  connection: 'reconnecting (the gateway did not answer)…',
};
const idle: FooterFacts = { queued: 0, model: 'openai/gpt-5-mini', reasoning: 'medium', tokensIn: 1200, tokensOut: 340, spent: '$0.0012', tokenCap: '', context: 'context 3% of 400k' };

const line = (f: FooterFacts, columns: number) => footerLine(f, columns).map((s) => s.text).join('');

test.each([100, 80])('at %i columns the footer is one line: shorter than the terminal', (columns) => {
  for (const facts of [busy, idle, { ...busy, connection: undefined }, { ...busy, phase: undefined, queued: 0 }]) {
    expect(line(facts, columns).length).toBeLessThan(columns);
  }
});

test('an idle session fits whole at 100 columns, and the level reads "reasoning", never as the phase', () => {
  expect(line(idle, 100)).toBe('openai/gpt-5-mini · reasoning medium · ↑1.2k ↓340 · $0.0012 · context 3% of 400k');
});

test('the least useful parts go first: token counts, then the reasoning level, then context; the model and the connection stay', () => {
  const at100 = line(busy, 100);
  expect(at100).toContain('anthropic/claude-sonnet-4-5-20250929');
  expect(at100).toContain('reconnecting');
  expect(at100).not.toContain('↑');
  const at80 = line(busy, 80);
  expect(at80).toContain('waiting approval');
  expect(at80).toContain('reconnecting');
  expect(at80).toMatch(/anthropic\/claude/);
  // What the wider line keeps, the narrower one keeps too or dropped: never the other way round.
  for (const part of ['reasoning high', 'context 62%', '$0.4213', '131k of 200k']) if (!at100.includes(part)) expect(at80).not.toContain(part);
  // Without the reconnecting notice and the phase, 100 columns hold the spending and caps.
  expect(line({ ...busy, connection: undefined, phase: undefined, queued: 0 }, 100)).toContain('$0.4213 of $5 · 131k of 200k tokens');
});
