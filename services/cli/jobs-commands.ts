import { stackConfigFromEnv } from '../../infra/stack/stack-config';
import { say } from './safe-output';

interface Job {
  job_id: string;
  session_id: string;
  turn_id: string;
  status: string;
  phase: string;
  started_at: number;
  steps: number;
  cost_usd: number;
  /** Absent from gateways older than the field. */
  model?: string;
}

/** The gateway the CLI talks to: STRAND_GATEWAY_URL, else the local stack's address. */
function gatewayUrl(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.STRAND_GATEWAY_URL?.trim();
  if (explicit) return explicit.replace(/\/$/, '');
  const config = stackConfigFromEnv(env);
  return `http://${env.STRAND_GATEWAY_HOST?.trim() || config.host}:${config.ports.gateway}`;
}

async function call(method: string, route: string): Promise<unknown> {
  const url = `${gatewayUrl()}${route}`;
  const token = process.env.STRAND_TOKEN?.trim();
  let res: Response;
  try {
    res = await fetch(url, { method, headers: token ? { Authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(15_000) });
  } catch (err) {
    throw new Error(`the gateway at ${gatewayUrl()} did not answer (${(err as Error).message}); is the stack running? (npm start)`);
  }
  const body = (await res.json().catch(() => ({}))) as { error?: { code: string; message: string } };
  if (!res.ok) throw new Error(body.error ? `${body.error.code}: ${body.error.message}` : `${method} ${route} answered ${res.status}`);
  return body;
}

const ago = (ms: number) => {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
};

function row(j: Job): string {
  return [j.job_id.padEnd(44), j.phase.padEnd(16), (j.model ?? '').padEnd(28), `${j.steps}`.padStart(5), `$${j.cost_usd.toFixed(4)}`.padStart(10), ago(j.started_at).padStart(6)].join('  ');
}

/** `strand jobs list|show <id>|cancel <id>` (parsed by cli-args.ts): turns running across sessions, through the gateway. */
export async function jobs(cmd: { action: 'list' } | { action: 'show' | 'cancel'; jobId: string }): Promise<void> {
  switch (cmd.action) {
    case 'list': {
      const { jobs: list } = (await call('GET', '/api/jobs')) as { jobs: Job[] };
      if (list.length === 0) return say('no running jobs');
      say(['job'.padEnd(44), 'phase'.padEnd(16), 'model'.padEnd(28), 'steps', '      cost', ' since'].join('  '));
      for (const j of list) say(row(j));
      return;
    }
    case 'show':
      say(JSON.stringify(await call('GET', `/api/jobs/${encodeURIComponent(cmd.jobId)}`), null, 2));
      return;
    case 'cancel': {
      const { status } = (await call('POST', `/api/jobs/${encodeURIComponent(cmd.jobId)}/cancel`)) as { status: string };
      say(status === 'cancelled' ? `cancelled ${cmd.jobId}` : `${cmd.jobId} is not running`);
      return;
    }
  }
}
