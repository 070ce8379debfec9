import { parseEdn } from '../codec';
import { kw } from '../edn-value';
import { runEql, unknownAttributes, type EqlResolvers } from './engine';
import { EqlError, parseEql } from './query';
import { eqlResolvers } from './resolvers';

interface Ctx {
  calls: string[];
}
const resolvers: EqlResolvers<Ctx> = {
  'a/name': { resolve: (c) => (c.calls.push('name'), 'ada') },
  'a/count': { resolve: async () => 3 },
  'a/items': { resolve: () => [{ id: 'x', label: 'X', extra: 1 }, { id: 'y', label: 'Y', extra: 2 }], children: ['id', 'label', 'extra'] },
  'a/one': { resolve: () => ({ id: 'z', label: 'Z', nested: { deep: true } }), children: ['id', 'label', 'nested'] },
  'a/broken': {
    resolve: () => {
      throw new Error('the disk is on fire');
    },
  },
};
const q = (text: string) => parseEql(parseEdn(text));

describe('parseEql', () => {
  test('attributes and joins, nested', () => {
    expect(q('[:a/name {:a/items [:id {:sub [:deep]}]}]')).toEqual([
      { kind: 'prop', key: 'a/name' },
      { kind: 'join', key: 'a/items', children: [{ kind: 'prop', key: 'id' }, { kind: 'join', key: 'sub', children: [{ kind: 'prop', key: 'deep' }] }] },
    ]);
  });

  test.each([
    ['{:a/name 1}', /must be an EDN vector/],
    ['"[:a/name]"', /must be an EDN vector/],
    ['[:a/name "b"]', /only attributes/],
    ['[{:a/items [:id] :a/one [:id]}]', /exactly one attribute/],
    ['[{:a/items :id}]', /must be an EDN vector/],
    ['[(:a/name {:x 1})]', /only attributes/],
  ])('%s is refused', (text, why) => {
    expect(() => q(text)).toThrow(EqlError);
    expect(() => q(text)).toThrow(why);
  });
});

describe('runEql', () => {
  test('resolves only what is asked; joins keep only the asked keys of each item (absent ones nil)', async () => {
    const ctx: Ctx = { calls: [] };
    const result = await runEql(q('[:a/count {:a/items [:label :id]} {:a/one [:id {:nested [:deep :none]}]}]'), resolvers, ctx);
    expect(result).toEqual({
      'a/count': 3,
      'a/items': [
        { label: 'X', id: 'x' },
        { label: 'Y', id: 'y' },
      ],
      'a/one': { id: 'z', nested: { deep: true, none: null } },
    });
    expect(ctx.calls).toEqual([]);
  });

  test('a plain attribute that is a collection comes whole', async () => {
    const result = await runEql(q('[:a/items]'), resolvers, { calls: [] });
    expect((result['a/items'] as unknown[]).length).toBe(2);
  });

  test('unknown attributes refuse the whole query, all of them named', async () => {
    const nodes = q('[:a/name :b/nope {:a/items [:id :what]} {:a/count [:x]}]');
    expect(unknownAttributes(nodes, resolvers)).toEqual([':b/nope', ':what (in :a/items)', ':a/count (not a join)']);
    const ctx: Ctx = { calls: [] };
    await expect(runEql(nodes, resolvers, ctx)).rejects.toMatchObject({ reason: 'unknown', attributes: [':b/nope', ':what (in :a/items)', ':a/count (not a join)'] });
    expect(ctx.calls).toEqual([]);
  });

  test('a failing resolver fails the query without leaking its message', async () => {
    const err = (await runEql(q('[:a/name :a/broken]'), resolvers, { calls: [] }).catch((e: unknown) => e)) as EqlError;
    expect(err).toBeInstanceOf(EqlError);
    expect(err.reason).toBe('failed');
    expect(err.message).toContain(':a/broken');
    expect(err.message).not.toContain('disk');
    expect((err.cause as Error).message).toBe('the disk is on fire');
  });

  test('inherited object keys are not attributes', () => {
    expect(unknownAttributes(parseEql([kw('constructor'), kw('toString')]), resolvers)).toEqual([':constructor', ':toString']);
  });
});

describe('the Emacs client queries', () => {
  // Verbatim from psi's components/emacs-ui (v0.1.2049): every attribute it asks for is answered.
  test.each([
    '[:psi.extension/command-names :psi.agent-session/prompt-templates]',
    '[:psi.agent-session/model-catalog\n    :psi.agent-session/authenticated-providers]',
    '[{:psi.session/list [:psi.session-info/path\n                        :psi.session-info/name\n                        :psi.session-info/worktree-path\n                        :psi.session-info/first-message\n                        :psi.session-info/modified]}]',
    '[:psi.agent-session/messages\n    {:psi.agent-session/tool-lifecycle-summaries\n     [:psi.tool-lifecycle.summary/tool-id\n      :psi.tool-lifecycle.summary/tool-name\n      :psi.tool-lifecycle.summary/arguments\n      :psi.tool-lifecycle.summary/parsed-args\n      :psi.tool-lifecycle.summary/result-text\n      :psi.tool-lifecycle.summary/is-error\n      :psi.tool-lifecycle.summary/completed?]}\n    :psi.turn/phase\n    :psi.turn/is-streaming\n    :psi.turn/text\n    {:psi.turn/tool-calls [:id :name :arguments]}\n    :psi.turn/tool-call-count]',
    '[:psi.ui/widget-specs]',
    '[:psi.agent-session/phase :psi.agent-session/model]',
  ])('%s', (text) => {
    expect(unknownAttributes(q(text), eqlResolvers)).toEqual([]);
  });
});
