import { StoreError } from './errors';
import { metadataMatches, parseBindingFilter } from './subscription';

describe('binding filters are validated when the binding is made', () => {
  test.each([
    ['created', { session_id: 's' }, /session_id not allowed on created/],
    ['status-changed', { roles: ['user'] }, /roles not allowed on status-changed/],
    ['meta-updated', { roles: ['assistant'] }, /roles not allowed/],
    ['message-added', { roles: ['wizard'] }, /roles/],
    ['message-added', { colour: 'red' }, /colour not allowed/],
    ['deleted', { metadata: 'owner=alice' }, /metadata/],
    ['message-updated', { session_id: '' }, /session_id/],
  ] as const)('%s %j is rejected', (type, filter, why) => {
    expect(() => parseBindingFilter(type, filter)).toThrow(StoreError);
    expect(() => parseBindingFilter(type, filter)).toThrow(why);
  });

  test.each([
    ['created', {}],
    ['created', { metadata: { owner: 'a' } }],
    ['message-added', { session_id: 's', roles: ['user', 'assistant'], metadata: { team: 'x' } }],
    ['message-updated', { roles: ['function_result'] }],
    ['status-changed', { session_id: 's' }],
    ['deleted', { metadata: { owner: 'a' } }],
  ] as const)('%s %j is accepted', (type, filter) => {
    expect(parseBindingFilter(type, filter)).toEqual(filter);
  });

  test('an unknown event type is rejected', () => {
    expect(() => parseBindingFilter('exploded' as never, {})).toThrow(/unknown store event type/);
  });
});

describe('metadata subset equality', () => {
  test('every filter key must equal the stored value', () => {
    expect(metadataMatches({ owner: 'a' }, { owner: 'a', team: 'x' })).toBe(true);
    expect(metadataMatches({ owner: 'a', team: 'y' }, { owner: 'a', team: 'x' })).toBe(false);
    expect(metadataMatches({ tags: ['x'] }, { tags: ['x'] })).toBe(true);
    expect(metadataMatches({ owner: 'a' }, undefined)).toBe(false);
    expect(metadataMatches(undefined, undefined)).toBe(true);
    expect(metadataMatches({}, { owner: 'a' })).toBe(true);
  });
});
