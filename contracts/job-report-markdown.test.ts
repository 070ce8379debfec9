import type { JobReport } from './job-report';
import { renderJobReportMarkdown } from './job-report-markdown';

const report: JobReport = {
  version: 1,
  job_id: 'fix-42',
  status: 'partial',
  reason: 'limits reached: deadline_soft',
  summary: 'Fixed the parser.\nLeft to do: the docs.',
  session_id: 'job-fix-42',
  workspace: { kind: 'git_worktree', path: '/jobs/fix-42/workspace', branch: 'strand/job-fix-42', base_commit: '0123456789abcdef0123', repository: '/src/app' },
  deliverable: {
    branch: 'strand/job-fix-42',
    commits: [{ sha: 'abcdef0123456789abcd', subject: 'strand job fix-42: work the agent left uncommitted' }],
    files: [
      { path: 'src/parse.ts', added: 12, removed: 3 },
      { path: 'logo.png', added: null, removed: null },
    ],
    patch_path: '/jobs/fix-42/job.patch',
    verified: true,
    problems: [],
  },
  commands: [
    { tool_call_id: 'c2', command: 'npm test | tail -5', exit_code: 1 },
    { tool_call_id: 'c3', command: 'sleep 999', exit_code: null },
  ],
  tool_calls: [
    { tool_call_id: 'c1', tool: 'edit_file', turn: 't1', rule: 'allow', rule_source: 'default', outcome: 'ran', decided_by: 'policy', is_error: false },
    { tool_call_id: 'c2', tool: 'shell_exec', turn: 't1', rule: 'escalate', rule_source: 'tools.shell_exec', outcome: 'ran', decided_by: 'person', answered_by: 'alice', reason: 'ok', is_error: false },
    { tool_call_id: 'c4', tool: 'delete_file', turn: 't2', rule: 'deny', rule_source: 'tools.delete_file', outcome: 'denied', decided_by: 'policy', is_error: true },
  ],
  usage: { cost_usd: 0.01234, tokens: 4567, steps: 9 },
  turns: [
    { kind: 'work', turn_id: 't1', outcome: 'done', steps: 7 },
    { kind: 'wrap_up', turn_id: 't2', outcome: 'done', steps: 2 },
  ],
  limits_hit: ['deadline_soft'],
  started_at: '2026-11-29T07:00:00.000Z',
  finished_at: '2026-11-29T07:25:30.000Z',
  duration_ms: 1_530_000,
};

test('a report as a document: status and why, summary, branch and commits, a files table with line counts, commands with exit codes, tool calls with their rules and who answered', () => {
  expect(renderJobReportMarkdown(report)).toBe(`# Job fix-42: partial

**Why:** limits reached: deadline_soft

- Started 2026-11-29T07:00:00.000Z, finished 2026-11-29T07:25:30.000Z (25m 30s)
- 9 model steps, 4567 tokens, $0.0123
- Session \`job-fix-42\`
- Limits reached: \`deadline_soft\`
- Turns: t1 work (done, 7 steps); t2 wrap-up (done, 2 steps)

## Summary

Fixed the parser.
Left to do: the docs.

## Deliverable

- Branch: \`strand/job-fix-42\` in \`/src/app\`
- Base: \`0123456789ab\`
- Patch: \`/jobs/fix-42/job.patch\`
- Verified: yes

### Commits

- \`abcdef012345\` strand job fix-42: work the agent left uncommitted

### Files

| File | Added | Removed |
|---|---|---|
| \`src/parse.ts\` | +12 | -3 |
| \`logo.png\` | binary | binary |

## Commands

| Command | Exit code |
|---|---|
| \`npm test \\| tail -5\` | 1 |
| \`sleep 999\` | did not exit |

## Tool calls

| Tool | Turn | Rule | Outcome | Decided by | Note |
|---|---|---|---|---|---|
| \`edit_file\` | t1 | allow (\`default\`) | ran | policy |  |
| \`shell_exec\` | t1 | escalate (\`tools.shell_exec\`) | ran | person: alice | ok |
| \`delete_file\` | t2 | deny (\`tools.delete_file\`) | denied (error) | policy |  |
`);
});

test('a job that failed before any workspace: no deliverable, no commands, no calls, and an empty answer said so', () => {
  const failed: JobReport = { ...report, status: 'failed', reason: 'the workspace was refused:\nnot a repository', summary: '', workspace: null, deliverable: null, commands: [], tool_calls: [], turns: [], limits_hit: [], duration_ms: 4_000 };
  const text = renderJobReportMarkdown(failed);
  expect(text).toContain('# Job fix-42: failed\n\n**Why:** the workspace was refused: not a repository\n');
  expect(text).toContain('(4s)');
  expect(text).toContain('## Summary\n\n_The agent left no final answer._\n');
  expect(text).toContain('## Deliverable\n\n_None was collected._\n');
  expect(text).toContain('## Commands\n\n_None ran._\n');
  expect(text).toMatch(/## Tool calls\n\n_None\._\n$/);
  expect(text).not.toContain('Turns:');
});

test('a command holding backticks stays one code span', () => {
  const text = renderJobReportMarkdown({ ...report, commands: [{ tool_call_id: 'c', command: 'echo `date`', exit_code: 0 }] });
  expect(text).toContain('| `` echo `date` `` | 0 |');
});
