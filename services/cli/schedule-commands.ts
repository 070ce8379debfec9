import fs from 'node:fs';
import path from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { gatewayApi } from './gateway-api';
import { say } from './safe-output';

/**
 * `strand schedule create|list|show|pause|resume|trigger|backfill|delete` (docs/jobs.md,
 * "Schedules"): the gateway's `/api/schedules` routes, from a terminal. Parsed here (the option
 * table and the positionals) for cli-args.ts, run here for main.ts.
 */

export type ScheduleCommand =
  | { command: 'schedule'; action: 'list' }
  | { command: 'schedule'; action: 'show' | 'resume' | 'trigger' | 'delete'; name: string }
  | { command: 'schedule'; action: 'pause'; name: string; note?: string }
  | { command: 'schedule'; action: 'backfill'; name: string; from: string; to: string }
  | { command: 'schedule'; action: 'create'; name: string; specFile: string; body: Record<string, unknown> };

export const SCHEDULE_OPTIONS: NonNullable<ParseArgsConfig['options']> = {
  help: { type: 'boolean', short: 'h' },
  spec: { type: 'string' },
  cron: { type: 'string' },
  every: { type: 'string' },
  timezone: { type: 'string' },
  overlap: { type: 'string' },
  'catchup-window': { type: 'string' },
  'pause-on-failure': { type: 'boolean' },
  notes: { type: 'boolean' },
  note: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
};

export const SCHEDULE_HELP = `usage: strand schedule list
       strand schedule create <name> --spec FILE (--cron "0 3 * * *" | --every 1h) [--timezone TZ]
                              [--overlap skip|buffer_one|cancel_other|allow_all] [--catchup-window SECONDS]
                              [--pause-on-failure] [--notes]
       strand schedule show <name>          the schedule, its next runs and its ledger
       strand schedule pause <name> [--note TEXT] | resume <name> | trigger <name> | delete <name>
       strand schedule backfill <name> --from ISO-TIME --to ISO-TIME
  A job spec (docs/jobs.md) run on a Temporal Schedule, through the gateway (STRAND_GATEWAY_URL picks
  one; STRAND_TOKEN is sent as the bearer token). --spec is a JSON file holding the job's spec.`;

type Values = Record<string, string | boolean | undefined>;
const str = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);

/** The command, or the usage error's message. */
export function parseScheduleCommand(positionals: string[], values: Values, base: string): ScheduleCommand | string {
  const [action = 'list', name, extra] = positionals;
  const see = '(see `strand schedule --help`)';
  if (action === 'list') return positionals.length > 1 ? `strand schedule list: unexpected argument ${JSON.stringify(positionals[1])} ${see}` : { command: 'schedule', action };
  const actions = ['create', 'show', 'pause', 'resume', 'trigger', 'backfill', 'delete'];
  if (!actions.includes(action)) return `strand schedule: unknown action ${JSON.stringify(action)}: list, ${actions.join(', ')} ${see}`;
  if (!name) return `strand schedule ${action}: needs a schedule name ${see}`;
  if (extra !== undefined) return `strand schedule ${action}: unexpected argument ${JSON.stringify(extra)} ${see}`;
  switch (action) {
    case 'create': {
      const spec = str(values.spec);
      if (!spec) return `strand schedule create: --spec FILE is required ${see}`;
      const cron = str(values.cron);
      const every = str(values.every);
      if ((cron === undefined) === (every === undefined)) return `strand schedule create: give one of --cron and --every ${see}`;
      const catchup = str(values['catchup-window']);
      if (catchup !== undefined && !/^\d+$/.test(catchup)) return `strand schedule create: --catchup-window is a number of seconds ${see}`;
      const body: Record<string, unknown> = {
        name,
        ...(cron !== undefined ? { cron } : { interval: every }),
        ...(str(values.timezone) !== undefined ? { timezone: str(values.timezone) } : {}),
        ...(str(values.overlap) !== undefined ? { overlap: str(values.overlap) } : {}),
        ...(catchup !== undefined ? { catchup_window_s: Number(catchup) } : {}),
        ...(values['pause-on-failure'] ? { pause_on_failure: true } : {}),
        ...(values.notes ? { notes: true } : {}),
      };
      return { command: 'schedule', action, name, specFile: path.resolve(base, spec), body };
    }
    case 'pause': {
      const note = str(values.note);
      return { command: 'schedule', action, name, ...(note !== undefined ? { note } : {}) };
    }
    case 'backfill': {
      const from = str(values.from);
      const to = str(values.to);
      if (!from || !to) return `strand schedule backfill: --from and --to are required ${see}`;
      return { command: 'schedule', action, name, from, to };
    }
    default:
      return { command: 'schedule', action: action as 'show' | 'resume' | 'trigger' | 'delete', name };
  }
}

const api = () => gatewayApi(30_000);

interface Entry {
  due_at: string;
  kind: string;
  outcome: string;
  reason?: string;
  job_id?: string;
  job_status?: string;
}

const ledgerLine = (e: Entry) => [e.due_at.padEnd(26), e.kind.padEnd(10), e.outcome.padEnd(8), e.reason ?? `${e.job_id ?? ''} ${e.job_status ?? ''}`].join('  ');

export async function schedule(cmd: ScheduleCommand): Promise<void> {
  const at = (name: string) => `/api/schedules/${encodeURIComponent(name)}`;
  switch (cmd.action) {
    case 'list': {
      const { schedules } = await api().call<{ schedules: Array<{ name: string; paused: boolean; next_runs: string[] }> }>('GET', '/api/schedules');
      if (schedules.length === 0) return say('no schedules');
      for (const s of schedules) say([s.name.padEnd(42), (s.paused ? 'paused' : 'active').padEnd(8), s.next_runs[0] ?? ''].join('  '));
      return;
    }
    case 'create': {
      const spec = JSON.parse(fs.readFileSync(cmd.specFile, 'utf8')) as unknown;
      const created = await api().call<{ name: string; next_runs: string[] }>('POST', '/api/schedules', { ...cmd.body, spec });
      return say(`created ${created.name}; next run ${created.next_runs[0] ?? '(none)'}`);
    }
    case 'show': {
      const { ledger, ...rest } = await api().call<{ ledger: Entry[] }>('GET', at(cmd.name));
      say(JSON.stringify(rest, null, 2));
      say(`ledger (latest ${ledger.length}; all of it: GET ${at(cmd.name)}/runs):`);
      for (const e of ledger) say(`  ${ledgerLine(e)}`);
      return;
    }
    case 'pause':
      await api().call('POST', `${at(cmd.name)}/pause`, cmd.note !== undefined ? { note: cmd.note } : {});
      return say(`paused ${cmd.name}`);
    case 'backfill':
      await api().call('POST', `${at(cmd.name)}/backfill`, { from: cmd.from, to: cmd.to });
      return say(`backfilling ${cmd.name} from ${cmd.from} to ${cmd.to}`);
    case 'resume':
    case 'trigger':
      await api().call('POST', `${at(cmd.name)}/${cmd.action}`);
      return say(`${cmd.action === 'resume' ? 'resumed' : 'triggered'} ${cmd.name}`);
    case 'delete':
      await api().call('DELETE', at(cmd.name));
      return say(`deleted ${cmd.name}`);
  }
}
