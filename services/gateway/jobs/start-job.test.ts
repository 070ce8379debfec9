import { jobIdSchema, jobSpecSchema } from '../../../contracts/job-spec';
import { freshJobId, jobIdForKey, specDigest } from './start-job';

/** The pure parts of starting a job: the ids it picks and the digest a second start is compared by. */

test('a fresh id is a valid job id: the date and 8 hex digits', () => {
  const id = freshJobId(new Date('2026-11-29T07:00:00Z'));
  expect(id).toMatch(/^20261129-[0-9a-f]{8}$/);
  expect(jobIdSchema.safeParse(id).success).toBe(true);
  expect(freshJobId()).not.toBe(freshJobId());
});

test('an Idempotency-Key is the job id when it is a valid one, else a stable digest that is', () => {
  expect(jobIdForKey('fix-42')).toBe('fix-42');
  expect(jobIdForKey('3f0c1a5e-8d2b-4c1f-9a77-0d6b2e4f1c3a')).toBe('3f0c1a5e-8d2b-4c1f-9a77-0d6b2e4f1c3a');
  const upper = jobIdForKey('3F0C1A5E-8D2B-4C1F-9A77-0D6B2E4F1C3A');
  expect(upper).toMatch(/^k-[0-9a-f]{32}$/);
  expect(jobIdForKey('3F0C1A5E-8D2B-4C1F-9A77-0D6B2E4F1C3A')).toBe(upper);
  expect(jobIdForKey('another key')).not.toBe(upper);
  for (const key of ['x'.repeat(64), 'Fix 42', '-leading-dash', '']) expect(jobIdSchema.safeParse(jobIdForKey(key)).success).toBe(true);
});

test('specs compare with their defaults filled and their keys in any order; a changed value differs', () => {
  const minimal = jobSpecSchema.parse({ version: 1, task: { prompt: 'p', project_path: '/p', model: 'scripted/echo' } });
  const spelledOut = jobSpecSchema.parse({ deliverable: { patch_file: true }, task: { model: 'scripted/echo', thinking_level: 'off', project_path: '/p', prompt: 'p' }, limits: { max_steps: 200 }, version: 1 });
  expect(specDigest(spelledOut)).toBe(specDigest(minimal));
  const other = jobSpecSchema.parse({ version: 1, task: { prompt: 'p', project_path: '/p', model: 'scripted/echo' }, policy: { tools: { shell_exec: 'escalate' } } });
  expect(specDigest(other)).not.toBe(specDigest(minimal));
});
