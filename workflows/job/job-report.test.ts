import { jobSpecSchema } from '../../contracts/job-spec';
import { jobReportSchema } from '../../contracts/job-report';
import { jobApprovalPolicy } from './job-policy';
import { buildJobReport, jobStatus, type JobOutcome } from './job-report';

const spec = jobSpecSchema.parse({
  version: 1,
  task: { prompt: 'p', project_path: '/p', model: 'scripted/echo' },
  policy: { default: 'escalate', tools: { read_file: 'allow', list_files: 'allow', shell_exec: 'deny' } },
  limits: { deadline_s: 600, wrap_up_before_s: 60 },
});

test('allowed built-in tools run without asking; everything else asks the job; the turn never times out first', () => {
  expect(jobApprovalPolicy(spec)).toEqual({ auto_approve_readonly: false, always_allow: ['read_file', 'list_files'], timeout_s: 4200, default_decision: 'reject', plan_mode: false });
  const allowAll = jobSpecSchema.parse({ version: 1, task: spec.task, policy: { tools: { delete_file: 'deny' } } });
  expect(jobApprovalPolicy(allowAll).always_allow).not.toContain('delete_file');
  expect(jobApprovalPolicy(allowAll).always_allow).toContain('shell_exec');
});

const verified = { branch: 'strand/job-j', commits: [], files: [], patch_path: null, verified: true, problems: [] };
const outcome = (o: Partial<JobOutcome>): JobOutcome => ({
  job_id: 'j',
  spec,
  session_id: 'job-j',
  workspace: null,
  deliverable: verified,
  summary: null,
  decisions: new Map(),
  turns: [{ kind: 'work', turn_id: 't1', outcome: 'done', steps: 1 }],
  limits_hit: [],
  cancelled: false,
  started_ms: 0,
  finished_ms: 1000,
  ...o,
});

test('the status: cancelled, then needs_human, then failures, then an unverified deliverable, then limits', () => {
  expect(jobStatus(outcome({}))).toEqual({ status: 'succeeded' });
  expect(jobStatus(outcome({ limits_hit: ['deadline_soft'] }))).toEqual({ status: 'partial', reason: 'limits reached: deadline_soft' });
  expect(jobStatus(outcome({ deliverable: { ...verified, verified: false, problems: ['gone'] }, limits_hit: ['budget'] }))).toEqual({ status: 'failed', reason: 'the deliverable did not verify: gone' });
  expect(jobStatus(outcome({ turns: [{ kind: 'work', turn_id: 't1', outcome: 'error', steps: 1 }] }))).toEqual({ status: 'failed', reason: 'the work turn t1 ended with an error' });
  expect(jobStatus(outcome({ failure: 'refused', deliverable: null }))).toEqual({ status: 'failed', reason: 'refused' });
  expect(jobStatus(outcome({ needs_human: 'asked', cancelled: false, failure: 'x' }))).toEqual({ status: 'needs_human', reason: 'asked' });
  expect(jobStatus(outcome({ cancelled: true, needs_human: 'asked' }))).toEqual({ status: 'cancelled', reason: 'the job was cancelled' });
});

test("the report joins the conversation's calls with the job's decisions and the policy, and parses as a report", () => {
  const report = buildJobReport(
    outcome({
      summary: {
        final_answer: 'done',
        last_stop: 'end',
        usage: { cost_usd: 0.5, tokens: 10, steps: 2 },
        tool_calls: [
          { tool_call_id: 'c1', tool: 'read_file', turn: 't1', exit_code: null, is_error: false, not_run: false },
          { tool_call_id: 'c2', tool: 'shell_exec', turn: 't1', command: 'rm -rf /', exit_code: null, is_error: true, not_run: true },
          { tool_call_id: 'c3', tool: 'write_file', turn: 't1', exit_code: null, is_error: false, not_run: false },
          { tool_call_id: 'c4', tool: 'write_file', turn: 't1', exit_code: null, is_error: true, not_run: true },
        ],
      },
      decisions: new Map([
        ['c2', { outcome: 'denied', decided_by: 'policy', reason: "denied by the job's policy (tools.shell_exec)" }],
        ['c3', { outcome: 'ran', decided_by: 'person', answered_by: 'bob' }],
      ]),
    }),
  );
  expect(jobReportSchema.parse(report)).toEqual(report);
  expect(report.tool_calls.map((c) => [c.tool_call_id, c.rule, c.rule_source, c.outcome, c.decided_by, c.answered_by ?? null])).toEqual([
    ['c1', 'allow', 'tools.read_file', 'ran', 'policy', null],
    ['c2', 'deny', 'tools.shell_exec', 'denied', 'policy', null],
    ['c3', 'escalate', 'default', 'ran', 'person', 'bob'],
    // Escalated, never decided, not run (cut off by an abort): the job's doing.
    ['c4', 'escalate', 'default', 'not_run', 'job', null],
  ]);
  expect(report.commands).toEqual([{ tool_call_id: 'c2', command: 'rm -rf /', exit_code: null }]);
  expect(report).toMatchObject({ status: 'succeeded', summary: 'done', usage: { cost_usd: 0.5, tokens: 10, steps: 2 }, started_at: '1970-01-01T00:00:00.000Z', duration_ms: 1000 });
});
