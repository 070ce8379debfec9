import type { JobReport } from './job-report';

/**
 * A job's report as a markdown document a person reads (`GET /api/jobs/{id}/report?format=markdown`,
 * `strand job report`): how it ended and why, the agent's summary, the branch and its commits, the
 * files with their line counts, the commands with their exit codes, and every tool call with the rule
 * that decided it and who answered. Pure: the gateway and the CLI render the same text.
 */
export function renderJobReportMarkdown(report: JobReport): string {
  const out: string[] = [`# Job ${report.job_id}: ${report.status}`, ''];
  if (report.reason) out.push(`**Why:** ${oneLine(report.reason)}`, '');
  const cost = `$${report.usage.cost_usd.toFixed(4)}`;
  out.push(
    `- Started ${report.started_at}, finished ${report.finished_at} (${duration(report.duration_ms)})`,
    `- ${report.usage.steps} model steps, ${report.usage.tokens} tokens, ${cost}`,
    `- Session \`${report.session_id}\``,
  );
  if (report.limits_hit.length > 0) out.push(`- Limits reached: ${report.limits_hit.map(code).join(', ')}`);
  if (report.turns.length > 0) out.push(`- Turns: ${report.turns.map((t) => `${t.turn_id} ${t.kind === 'wrap_up' ? 'wrap-up' : 'work'} (${t.outcome}, ${t.steps} steps)`).join('; ')}`);
  out.push('', '## Summary', '', report.summary.trim() || '_The agent left no final answer._', '');

  const d = report.deliverable;
  out.push('## Deliverable', '');
  if (!d) out.push('_None was collected._', '');
  else {
    out.push(`- Branch: ${d.branch ? code(d.branch) : '—'}${report.workspace?.repository ? ` in ${code(report.workspace.repository)}` : ''}`);
    if (report.workspace?.base_commit) out.push(`- Base: ${code(report.workspace.base_commit.slice(0, 12))}`);
    out.push(`- Patch: ${d.patch_path ? code(d.patch_path) : '—'}`, `- Verified: ${d.verified ? 'yes' : 'no'}`);
    for (const p of d.problems) out.push(`  - ${oneLine(p)}`);
    out.push('', '### Commits', '');
    if (d.commits.length === 0) out.push('_None._');
    for (const c of d.commits) out.push(`- ${code(c.sha.slice(0, 12))} ${oneLine(c.subject)}`);
    out.push('', '### Files', '');
    if (d.files.length === 0) out.push('_No file changed._');
    else out.push(...table(['File', 'Added', 'Removed'], d.files.map((f) => [code(f.path), f.added === null ? 'binary' : `+${f.added}`, f.removed === null ? 'binary' : `-${f.removed}`])));
    out.push('');
  }

  out.push('## Commands', '');
  if (report.commands.length === 0) out.push('_None ran._');
  else out.push(...table(['Command', 'Exit code'], report.commands.map((c) => [code(oneLine(c.command)), c.exit_code === null ? 'did not exit' : String(c.exit_code)])));
  out.push('', '## Tool calls', '');
  if (report.tool_calls.length === 0) out.push('_None._');
  else
    out.push(
      ...table(
        ['Tool', 'Turn', 'Rule', 'Outcome', 'Decided by', 'Note'],
        report.tool_calls.map((c) => [
          code(c.tool),
          c.turn,
          `${c.rule} (${code(c.rule_source)})`,
          c.outcome + (c.is_error ? ' (error)' : ''),
          c.answered_by ? `${c.decided_by}: ${c.answered_by}` : c.decided_by,
          c.reason ? oneLine(c.reason) : '',
        ]),
      ),
    );
  return `${out.join('\n').trimEnd()}\n`;
}

function table(head: string[], rows: string[][]): string[] {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)];
}

/** A table cell on one line, its pipes escaped. */
const cell = (s: string) => s.replace(/\|/g, '\\|');
const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ').trim();

/** Inline code that survives backticks inside it. */
function code(s: string): string {
  const fence = '`'.repeat(Math.max(0, ...[...s.matchAll(/`+/g)].map((m) => m[0].length)) + 1);
  return fence.length > 1 ? `${fence} ${s} ${fence}` : `\`${s}\``;
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
