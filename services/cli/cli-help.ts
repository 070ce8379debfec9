/** What `strand --help` and `strand <command> --help` print. */
import { SCHEDULE_HELP } from './schedule-commands';

export const COMMAND_HELP = {
  up: `usage: strand up [-d] [--gateways N] [--workers N] [--stores N]
  Starts the local stack (nats-server, Temporal dev server, session store, workers, gateway) and
  prints "[strand] ready" with the gateway's URL, its API docs and the Temporal UI once a first
  prompt can be served.
  -d, --detach      run in the background (logs in <data dir>/stack.log; \`npm stop\` stops it);
                    without it the stack runs in the foreground until Ctrl-C
  --gateways N      run N gateways (extra ones on the ports after the first's)
  --workers N       run N workers (default 2, so a crashed worker's turns go on at once)
  --stores N        run N stores (more than 1 use the store's jetstream adapter)
  N is a whole number from 1 to 8; see docs/multi-instance.md.`,
  supervise: `usage: strand supervise [--detached] [--gateways N] [--workers N] [--stores N]
  (internal) The stack runner that \`strand up\` starts in a process group of its own.`,
  down: `usage: strand down
  Stops a running stack, and whatever an earlier, crashed one left running.`,
  status: `usage: strand status
  Shows whether a stack runs and whether its gateways are healthy.`,
  turns: `usage: strand turns [list] | show <turn id> | cancel <turn id>
  Turns running across sessions, through the gateway (STRAND_GATEWAY_URL picks one; STRAND_TOKEN
  is sent as the bearer token). A turn id is session:<id>:turn:<n>.`,
  jobs: `usage: strand jobs [list] [--status STATUS]
  Your unattended jobs (docs/jobs.md), newest first, through the gateway (STRAND_GATEWAY_URL picks
  one; STRAND_TOKEN is sent as the bearer token).
  --status STATUS   only these: running, succeeded, partial, failed, cancelled, needs_human,
                    terminated, timed_out`,
  job: `usage: strand job run <spec.json | -> [--id ID] [--wait]
       strand job show <id>
       strand job report <id> [--json]
       strand job cancel <id>
       strand job answer <id> <tool call id> allow|deny [--reason TEXT]
       strand job resume <id> allow|deny [--message TEXT]
  Unattended jobs (docs/jobs.md) through the gateway (STRAND_GATEWAY_URL picks one; STRAND_TOKEN is
  sent as the bearer token).
  run       start a job from its spec (a file, or - for stdin); prints its id and how to follow it
  --id ID   the job's id (1-63 lowercase letters, digits, dashes); the same id and spec twice start one job
  --wait    follow the job until it ends and print its report (markdown); exit 0 when it succeeded,
            1 otherwise
  show      its progress (phase, steps, cost, escalated calls waiting) or, once ended, its report's gist
  report    its report as markdown (--json: as JSON); only once the job has ended
  cancel    stop it: it collects what was done and reports \`cancelled\`
  answer    allow or deny an escalated tool call the job waits on (you are named in the report)
  resume    a job waiting in needs_human: allow or deny the call it stopped at, with a message for
            the model (--message); the work goes on and its report names you`,
  hook: `usage: strand hook define <name> <file.json> | list | show <name> | delete <name>
       strand hook sign <name> <body-file> [--secret-env VAR]
  Hooks: signed web deliveries that start unattended jobs (docs/jobs.md, "Triggers"), through the
  gateway (STRAND_GATEWAY_URL picks one; STRAND_TOKEN is sent as the bearer token).
  define        PUT the definition in the file ({template, values, secret_env, key?, supersede?})
  show          the definition and its last deliveries
  sign          print the X-Strand-Signature header for the file's bytes, under the secret in the
                environment variable the hook names (read from the gateway), or VAR's`,
  schedule: SCHEDULE_HELP,
  'rpc-edn': `usage: strand rpc-edn [--cwd DIR] [--session-id ID]
  EDN RPC (docs/edn.md) on stdin/stdout for editors that spawn it (Emacs); logs on stderr.
  --cwd DIR          the project directory of new sessions (default: where it runs)
  --session-id ID    the session to attach to`,
  chat: `usage: strand chat [--cwd DIR] [--session ID | --new] [-p PROMPT] [-y]
  A chat with the agent in this directory's project (or --cwd's), through the gateway (STRAND_URL picks one;
  STRAND_TOKEN is sent as the bearer token). In a terminal: an interactive chat (/help lists its
  commands). With -p, or a prompt on stdin from a pipe: one turn, the answer printed as plain
  text; exit 0 when the turn is done, 1 on an error, 3 when it was aborted (see docs/chat.md).
  --cwd DIR      the project to chat about (default: where it runs)
  --session ID   open this session (default: pick one of the project's, or start one)
  --new          start a new session
  -p, --prompt   the prompt of a one-turn run (no terminal needed)
  -y, --yes      one-turn run: approve the tool calls that ask (default: refuse them)`,
  acp: `usage: strand acp [--cwd DIR]
  strand as an Agent Client Protocol agent on stdin/stdout, for editors that spawn it (Zed, Emacs
  agent-shell, Neovim; docs/acp.md). stderr carries errors only (STRAND_LOG_LEVEL for more); with
  tokens configured, STRAND_TOKEN is this agent's token.
  --cwd DIR          where a relative session directory is resolved (default: where it runs)`,
} as const;

export const USAGE = `usage: strand <command> [options]   (strand <command> --help for its options)
  up          start the local stack in the foreground (Ctrl-C stops it); -d: in the background
  up --gateways N --workers N --stores N
              run N of each on one Temporal and one NATS (default: 1 gateway, 2 workers, 1 store)
  down        stop a running stack, and whatever an earlier, crashed one left running
  status      show whether a stack runs and whether its gateway is healthy
  turns list | show <id> | cancel <id>
              turns running across sessions (through the gateway; STRAND_GATEWAY_URL to pick one)
  jobs [list] [--status S]
              your unattended jobs, newest first
  job run <spec.json|-> [--wait] | show <id> | report <id> | cancel <id> | answer <id> <call> allow|deny
              start, follow, answer and stop an unattended job
  hook define|list|show|delete|sign
              signed web hooks that start jobs; sign: the signature header for a body
  schedule list | create <name> --spec FILE --every 1h | show | pause | resume | trigger | backfill | delete <name>
              jobs on a schedule, and the ledger of their runs (through the gateway)
  rpc-edn [--cwd DIR] [--session-id ID]
              EDN RPC on stdin/stdout for editors that spawn it (Emacs); logs on stderr
  chat [--cwd DIR] [--session ID | --new] [-p PROMPT] [-y]
              chat with the agent in this directory (a terminal UI; -p or a pipe: one answer as text)
  acp [--cwd DIR]
              an ACP agent on stdin/stdout for editors that spawn it (Zed, agent-shell, Neovim)
  help [command]
              this text, or a command's
  supervise   (internal) the stack runner that \`up\` starts`;
