/** One way of starting one service, as bench/startup.bench.ts measures it. */
export interface StartupCase {
  service: 'store' | 'worker' | 'gateway';
  code: 'source' | 'built';
  /** The worker only: started with an empty workflow-bundle cache, so it bundles the workflows first. */
  coldBundleCache?: boolean;
}

interface StartupJson {
  meta: Record<string, unknown>;
  results: Array<{ service: string; code: string; median_ms: number; min_ms: number; max_ms: number; cpu_median_ms?: number; x_store_built: number }>;
  gateway_sigkill_to_healthy: Array<{ code: string; median_ms: number; runs_ms: number[] }>;
}

/** The markdown table of bench/results/startup.md: one row per service and way of starting it. */
export function startupMarkdown(json: StartupJson): string {
  const round = (x: number) => String(Math.round(x));
  const rows = json.results.map((r) => `| ${r.service} | ${r.code} | ${round(r.median_ms)} | ${round(r.min_ms)} | ${round(r.max_ms)} | ${r.cpu_median_ms === undefined ? '-' : round(r.cpu_median_ms)} | ${r.x_store_built.toFixed(2)} |`);
  return [
    '# npm run bench:startup',
    '',
    'Process start → `[service] ready`, as the stack starts each service (median of the runs). CPU: what the',
    'process used up to its ready line (all threads, /proc), which the machine\'s load barely moves; × store: the',
    'median over the built store\'s in the same run.',
    '',
    '```json',
    JSON.stringify(json.meta, null, 2),
    '```',
    '',
    '| service | code | median ms | min ms | max ms | CPU median ms | × store (built) |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    'A supervised gateway killed with SIGKILL → its `/healthz` answers again (0.5 s of it is the supervisor\'s backoff):',
    '',
    '| code | median ms | runs ms |',
    '|---|---|---|',
    ...json.gateway_sigkill_to_healthy.map((g) => `| ${g.code} | ${round(g.median_ms)} | ${g.runs_ms.map(round).join(', ')} |`),
    '',
  ].join('\n');
}
