import { jobBranch, jobIdSchema, jobRuleFor, jobSpecSchema } from './job-spec';
import { jobReportSchema } from './job-report';
import { mcpToolName } from './mcp';

const minimal = { version: 1, task: { prompt: 'fix the tests', project_path: '/src/app', model: 'scripted/echo' } };

test('a minimal spec gets the documented defaults at every depth', () => {
  expect(jobSpecSchema.parse(minimal)).toEqual({
    version: 1,
    task: { prompt: 'fix the tests', project_path: '/src/app', model: 'scripted/echo', thinking_level: 'off' },
    policy: { default: 'allow', tools: {}, mcp_tools: {}, escalation: { timeout_s: 3600, on_timeout: 'deny', resume_wait_s: 86400 } },
    limits: { max_steps: 200, deadline_s: 3600, wrap_up_before_s: 300, soft_share: 0.8, stall_s: 300 },
    workspace: { kind: 'auto' },
    deliverable: { patch_file: true },
  });
});

test('unknown keys are refused at every depth, and so are other versions', () => {
  const refusedAt = (spec: unknown) => {
    const r = jobSpecSchema.safeParse(spec);
    return r.success ? 'accepted' : r.error.issues.map((i) => `${i.path.join('.')}: ${i.code}`);
  };
  expect(refusedAt({ ...minimal, notify: { url: 'http://x', secret: 's3cret' } })).toEqual(['notify: unrecognized_keys']);
  expect(refusedAt({ ...minimal, other: 1 })).toEqual([': unrecognized_keys']);
  expect(refusedAt({ ...minimal, task: { ...minimal.task, branch: 'x' } })).toEqual(['task: unrecognized_keys']);
  expect(refusedAt({ ...minimal, policy: { escalation: { timeout: 5 } } })).toEqual(['policy.escalation: unrecognized_keys']);
  expect(refusedAt({ ...minimal, limits: { budget: 3 } })).toEqual(['limits: unrecognized_keys']);
  expect(refusedAt({ ...minimal, version: 2 })).toEqual(['version: invalid_value']);
  expect(refusedAt({ task: minimal.task })).toEqual(['version: invalid_value']);
});

test('bad values are refused with the field named', () => {
  const paths = (spec: unknown) => {
    const r = jobSpecSchema.safeParse(spec);
    return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
  };
  expect(paths({ ...minimal, task: { ...minimal.task, project_path: 'relative/dir' } })).toEqual(['task.project_path']);
  expect(paths({ ...minimal, task: { ...minimal.task, prompt: '' } })).toEqual(['task.prompt']);
  expect(paths({ ...minimal, task: { ...minimal.task, model: 'gpt' } })).toEqual(['task.model']);
  expect(paths({ ...minimal, policy: { tools: { shell: 'allow' } } })).toEqual(['policy.tools.shell']);
  expect(paths({ ...minimal, policy: { tools: { shell_exec: 'maybe' } } })).toEqual(['policy.tools.shell_exec']);
  expect(paths({ ...minimal, policy: { mcp_tools: { github: 'deny' } } })).toEqual(['policy.mcp_tools.github']);
  expect(paths({ ...minimal, policy: { escalation: { on_timeout: 'approve' } } })).toEqual(['policy.escalation.on_timeout']);
  expect(paths({ ...minimal, limits: { deadline_s: 60, wrap_up_before_s: 60 } })).toEqual(['limits.wrap_up_before_s']);
  expect(paths({ ...minimal, limits: { max_cost_usd: -1 } })).toEqual(['limits.max_cost_usd']);
  expect(paths({ ...minimal, limits: { soft_share: 1.5 } })).toEqual(['limits.soft_share']);
  expect(paths({ ...minimal, workspace: { kind: 'docker' } })).toEqual(['workspace.kind']);
});

test('the rule of a call: the named tool, then the exact MCP tool, then its server, then the default', () => {
  const { policy } = jobSpecSchema.parse({
    ...minimal,
    policy: { default: 'escalate', tools: { shell_exec: 'deny', read_file: 'allow' }, mcp_tools: { 'github/*': 'allow', 'github/delete_repo': 'deny' } },
  });
  expect(jobRuleFor(policy, 'shell_exec')).toEqual({ rule: 'deny', source: 'tools.shell_exec' });
  expect(jobRuleFor(policy, 'read_file')).toEqual({ rule: 'allow', source: 'tools.read_file' });
  expect(jobRuleFor(policy, 'write_file')).toEqual({ rule: 'escalate', source: 'default' });
  expect(jobRuleFor(policy, mcpToolName('github', 'delete_repo'))).toEqual({ rule: 'deny', source: 'mcp_tools.github/delete_repo' });
  expect(jobRuleFor(policy, mcpToolName('github', 'list_issues'))).toEqual({ rule: 'allow', source: 'mcp_tools.github/*' });
  expect(jobRuleFor(policy, mcpToolName('gitlab', 'list_issues'))).toEqual({ rule: 'escalate', source: 'default' });
});

test('job ids are safe in branch names; the branch is strand/job-<id>', () => {
  expect(jobIdSchema.safeParse('fix-42').success).toBe(true);
  for (const bad of ['', 'Fix', '../x', 'a b', 'a/b', '-x', 'x'.repeat(64)]) expect(jobIdSchema.safeParse(bad).success).toBe(false);
  expect(jobBranch('fix-42')).toBe('strand/job-fix-42');
});

test('the report is strict and versioned', () => {
  const report = {
    version: 1,
    job_id: 'j1',
    status: 'succeeded',
    summary: 'done',
    session_id: 'job-j1',
    workspace: { kind: 'git_worktree', path: '/w', branch: 'strand/job-j1', base_commit: 'abc', repository: '/r' },
    deliverable: { branch: 'strand/job-j1', commits: [{ sha: 'def', subject: 's' }], files: [{ path: 'a', added: 1, removed: 0 }], patch_path: '/p', verified: true, problems: [] },
    commands: [{ tool_call_id: 'c1', command: 'ls', exit_code: 0 }],
    tool_calls: [{ tool_call_id: 'c1', tool: 'shell_exec', turn: 't1', rule: 'allow', rule_source: 'default', outcome: 'ran', decided_by: 'policy', is_error: false }],
    usage: { cost_usd: 0, tokens: 10, steps: 2 },
    turns: [{ kind: 'work', turn_id: 't1', outcome: 'done', steps: 2 }],
    limits_hit: [],
    started_at: '2026-11-29T00:00:00.000Z',
    finished_at: '2026-11-29T00:00:01.000Z',
    duration_ms: 1000,
  };
  expect(jobReportSchema.parse(report)).toEqual(report);
  expect(jobReportSchema.safeParse({ ...report, status: 'done' }).success).toBe(false);
  expect(jobReportSchema.safeParse({ ...report, extra: 1 }).success).toBe(false);
  expect(jobReportSchema.safeParse({ ...report, commands: [{ command: 'ls', exit_code: 0 }] }).success).toBe(false);
});

test('notify names a URL and, for the secret, an environment variable of the worker; events default to all three', () => {
  expect(jobSpecSchema.parse({ ...minimal, notify: { url: 'https://hooks.example/strand', secret_env: 'STRAND_JOB_SECRET_CI' } }).notify).toEqual({
    url: 'https://hooks.example/strand',
    secret_env: 'STRAND_JOB_SECRET_CI',
    events: ['job.finished', 'job.escalation', 'job.needs_human'],
  });
  const paths = (notify: unknown) => {
    const r = jobSpecSchema.safeParse({ ...minimal, notify });
    return r.success ? [] : r.error.issues.map((i) => i.path.join('.'));
  };
  // Another variable of the worker (a provider's key) cannot be named; neither can a non-http URL.
  expect(paths({ url: 'https://x.example', secret_env: 'ANTHROPIC_API_KEY' })).toEqual(['notify.secret_env']);
  expect(paths({ url: 'file:///etc/passwd' })).toEqual(['notify.url']);
  expect(paths({ url: 'https://x.example', events: ['job.started'] })).toEqual(['notify.events.0']);
  expect(paths({ url: 'https://x.example', events: [] })).toEqual(['notify.events']);
});
