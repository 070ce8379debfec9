import { gatewayApi } from './gateway-api';
import { say } from './safe-output';

interface Turn {
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

const api = () => gatewayApi(15_000);

const ago = (ms: number) => {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 120 ? `${s}s` : s < 7200 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
};

function row(j: Turn): string {
  return [j.job_id.padEnd(44), j.phase.padEnd(16), (j.model ?? '').padEnd(28), `${j.steps}`.padStart(5), `$${j.cost_usd.toFixed(4)}`.padStart(10), ago(j.started_at).padStart(6)].join('  ');
}

/** `strand turns list|show <id>|cancel <id>` (parsed by cli-args.ts): turns running across sessions, through the gateway. */
export async function turns(cmd: { action: 'list' } | { action: 'show' | 'cancel'; turnId: string }): Promise<void> {
  switch (cmd.action) {
    case 'list': {
      const { turns: list } = (await api().call('GET', '/api/turns')) as { turns: Turn[] };
      if (list.length === 0) return say('no running turns');
      say(['turn'.padEnd(44), 'phase'.padEnd(16), 'model'.padEnd(28), 'steps', '      cost', ' since'].join('  '));
      for (const j of list) say(row(j));
      return;
    }
    case 'show':
      say(JSON.stringify(await api().call('GET', `/api/turns/${encodeURIComponent(cmd.turnId)}`), null, 2));
      return;
    case 'cancel': {
      const { status } = (await api().call('POST', `/api/turns/${encodeURIComponent(cmd.turnId)}/cancel`)) as { status: string };
      say(status === 'cancelled' ? `cancelled ${cmd.turnId}` : `${cmd.turnId} is not running`);
      return;
    }
  }
}
