import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { useAcpStack } from '../harness/acp-fixture';

/**
 * `strand acp` driven by an independent client: acp.el, the Emacs library under agent-shell
 * (github xenodium/acp.el), in batch emacs-nox — new → model → prompt → permission (allow once) →
 * a second process loads the session. acp.el is in no package registry this project's machines reach
 * and third-party source is never committed, so this test runs where ACP_EL_DIR names a folder that
 * holds acp.el (and `emacs` is installed); elsewhere it says so and is skipped. docs/acp.md says
 * how to run it.
 */
const ACP_EL_DIR = process.env.ACP_EL_DIR;
const emacs = spawnSync('emacs', ['--version'], { encoding: 'utf8' });
const ready = !!ACP_EL_DIR && fs.existsSync(path.join(ACP_EL_DIR, 'acp.el')) && emacs.status === 0;
if (!ready) console.warn(`acp-emacs: skipped (${!ACP_EL_DIR ? 'ACP_EL_DIR is not set' : emacs.status !== 0 ? 'emacs is not installed' : `no acp.el in ${ACP_EL_DIR}`})`);

const acpStack = ready ? useAcpStack('acp-emacs') : undefined;
const REPO = path.resolve(__dirname, '../..');

/** What driver.el writes; answers are kept as the JSON text acp.el made of them. */
interface DriverOutput {
  initialize: string;
  session_id: string;
  prompt: string;
  load: string;
  permissions: string[];
  errors: string[];
  /** [phase, method, sessionUpdate kind, update as JSON] in the order acp.el handed them over. */
  log: Array<[string, string, string, string]>;
}

(ready ? test : test.skip)('acp.el in batch Emacs: a prompt with a permission request, then a load by a second process replays the conversation', () => {
  const { stack, workspace } = acpStack!;
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'hello world\n');
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'strand-acp-el-')), 'out.json');
  const run = spawnSync('emacs', ['--batch', '-Q', '-L', ACP_EL_DIR!, '-l', path.join(__dirname, 'acp-el', 'driver.el')], {
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      STRAND_NATS_URL: stack.urls.nats,
      STRAND_TEMPORAL_ADDRESS: stack.urls.temporal,
      STRAND_URL: stack.urls.gateway,
      STRAND_DEFAULT_MODEL: 'scripted/echo',
      STRAND_ACP_NODE: process.execPath,
      STRAND_ACP_BIN: path.join(REPO, 'bin', 'strand.cjs'),
      ACP_WORKSPACE: workspace,
      ACP_MODEL: 'scripted/acp-edit',
      ACP_OUT: out,
    },
  });
  if (run.status !== 0 || !fs.existsSync(out)) throw new Error(`emacs exited ${run.status}: ${run.stderr}`);
  const result = JSON.parse(fs.readFileSync(out, 'utf8')) as DriverOutput;

  expect(JSON.parse(result.initialize)).toMatchObject({ protocolVersion: 1, agentCapabilities: { loadSession: true } });
  expect(JSON.parse(result.prompt)).toEqual({ stopReason: 'end_turn' });
  // acp.el turns every stderr line of the agent into an error (agent-shell shows each as a block).
  expect(result.errors).toEqual([]);
  expect(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8')).toBe('hello strand\n');

  const permissions = result.permissions.map((p) => JSON.parse(p));
  expect(permissions).toHaveLength(1);
  expect(permissions[0].options.map((o: { kind: string }) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once', 'reject_always']);
  expect(permissions[0].toolCall).toMatchObject({ kind: 'edit', status: 'pending' });

  const during = (phase: string) => result.log.filter(([p, method]) => p === phase && method === 'session/update').map(([, , kind, update]) => ({ kind, update: JSON.parse(update) }));
  const prompt = during('prompt');
  const callId = permissions[0].toolCall.toolCallId;
  const call = prompt.findIndex((u) => u.kind === 'tool_call' && u.update.toolCallId === callId);
  const done = prompt.findIndex((u) => u.kind === 'tool_call_update' && u.update.toolCallId === callId && u.update.status === 'completed');
  expect(call).toBeGreaterThanOrEqual(0);
  expect(done).toBeGreaterThan(call);
  expect(prompt[done]!.update.content.some((c: { type: string }) => c.type === 'diff')).toBe(true);
  const said = (updates: typeof prompt, kind: string) => updates.filter((u) => u.kind === kind).map((u) => u.update.content.text).join('');
  expect(said(prompt, 'agent_message_chunk')).toContain('I will edit the note.');

  // The second process replays the stored conversation before answering the load.
  const load = during('load');
  expect(said(load, 'user_message_chunk')).toBe('edit the note');
  expect(said(load, 'agent_message_chunk')).toBe(said(prompt, 'agent_message_chunk'));
  expect(load.some((u) => u.kind === 'tool_call' && u.update.toolCallId === callId)).toBe(true);
  // Answered with the session's modes and options, as session/new is.
  expect(JSON.parse(result.load)).toMatchObject({ modes: { currentModeId: 'ask' } });
}, 180_000);
