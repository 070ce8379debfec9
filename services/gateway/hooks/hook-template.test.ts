import { ErrorCode, type StrandError } from '../../../contracts/errors';
import { hookSignatureMatches, signHookBody } from '../../../contracts/job-hook-signature';
import { checkDefinition, fillTemplate, placeholdersIn, readPointer, valuesFrom } from './hook-template';

const template = {
  version: 1,
  task: { prompt: 'Fix ${repo} at ${ref}', project_path: '/src/${repo}', ref: '${ref}', model: 'scripted/echo' },
};
const body = { ref: 'refs/heads/main', repository: { name: 'app', 'a/b': 1, list: [10, 20] }, draft: false, nothing: null };

test('JSON pointers read the body as RFC 6901 says, undefined where a step is missing', () => {
  expect(readPointer(body, '')).toBe(body);
  expect(readPointer(body, '/repository/name')).toBe('app');
  expect(readPointer(body, '/repository/a~1b')).toBe(1);
  expect(readPointer(body, '/repository/list/1')).toBe(20);
  expect(readPointer(body, '/repository/list/01')).toBeUndefined();
  expect(readPointer(body, '/repository/missing')).toBeUndefined();
  expect(readPointer(body, '/ref/length')).toBeUndefined();
});

test('the template is filled into a job spec with its defaults', () => {
  const spec = fillTemplate(template, valuesFrom(body, { repo: '/repository/name', ref: '/ref' }));
  expect(spec.task).toEqual({ prompt: 'Fix app at refs/heads/main', project_path: '/src/app', ref: 'refs/heads/main', model: 'scripted/echo', thinking_level: 'off' });
  expect(spec.limits.max_steps).toBe(200);
  expect(valuesFrom(body, { d: '/draft', l: '/repository/list' })).toEqual({ d: 'false', l: '[10,20]' });
});

function rejection(fn: () => unknown): StrandError {
  try {
    fn();
  } catch (err) {
    return err as StrandError;
  }
  throw new Error('not refused');
}

test('a missing or null value is refused naming the placeholder; a filled spec that is no spec names its path', () => {
  const missing = rejection(() => valuesFrom(body, { repo: '/repository/name', sha: '/after' }));
  expect([missing.code, missing.details]).toEqual([ErrorCode.HOOK_DELIVERY_REJECTED, { placeholder: 'sha', pointer: '/after' }]);
  expect(missing.message).toBe('the delivery has no value for ${sha} at /after');
  expect(rejection(() => valuesFrom(body, { n: '/nothing' })).details).toEqual({ placeholder: 'n', pointer: '/nothing' });
  const notSpec = rejection(() => fillTemplate({ ...template, task: { ...template.task, project_path: '${repo}' } }, { repo: 'relative', ref: 'main' }));
  expect([notSpec.code, notSpec.details?.path]).toEqual([ErrorCode.HOOK_DELIVERY_REJECTED, 'task.project_path']);
});

test('a definition must define every placeholder its template uses, and its key', () => {
  expect([...placeholdersIn(template)].sort()).toEqual(['ref', 'repo']);
  const base = { template, values: { repo: '/r', ref: '/ref' }, secret_env: 'S', supersede: 'queue' as const };
  expect(() => checkDefinition(base)).not.toThrow();
  expect(rejection(() => checkDefinition({ ...base, values: { repo: '/r' } })).details).toEqual({ placeholders: ['ref'] });
  expect(rejection(() => checkDefinition({ ...base, key: 'branch' })).code).toBe(ErrorCode.INVALID_REQUEST);
});

test('a signature matches its body under its secret only', () => {
  const sig = signHookBody('s3cret', '{"a":1}');
  expect(sig).toMatch(/^sha256=[0-9a-f]{64}$/);
  expect(hookSignatureMatches('s3cret', Buffer.from('{"a":1}'), sig)).toBe(true);
  expect(hookSignatureMatches('s3cret', Buffer.from('{"a":1}'), sig.toUpperCase().replace('SHA256', 'sha256'))).toBe(true);
  expect(hookSignatureMatches('other', '{"a":1}', sig)).toBe(false);
  expect(hookSignatureMatches('s3cret', '{"a":2}', sig)).toBe(false);
  expect(hookSignatureMatches('s3cret', '{"a":1}', sig.slice(0, -1))).toBe(false);
  expect(hookSignatureMatches('s3cret', '{"a":1}', undefined)).toBe(false);
});
