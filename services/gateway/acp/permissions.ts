import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk';
import type { ApprovalCommand } from '../../../contracts/session-workflow';
import type { Logger } from '../../common/logger';
import type { SessionService } from '../sessions/session-service';
import { toolCallStart } from './tool-calls';

/** The four answers ACP clients show, and the decision each one is for strand. */
const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'allow-always', name: 'Always allow this tool', kind: 'allow_always' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
  { optionId: 'reject-always', name: 'Always reject this tool', kind: 'reject_always' },
];

const DECISIONS: Readonly<Record<string, ApprovalCommand['decision']>> = { 'allow-once': 'approve', 'allow-always': 'always', 'reject-once': 'reject', 'reject-always': 'reject' };

/** A tool call that waits for a person. */
export interface ApprovalItem {
  callId: string;
  tool: string;
  params: unknown;
  turn: string | undefined;
}

export interface PermissionDeps {
  sessions: SessionService;
  sessionId: string;
  principal: string | undefined;
  project: string;
  log: Logger;
  /** Sends `session/request_permission`; aborting `signal` withdraws the question ($/cancel_request). */
  ask(request: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse>;
}

/**
 * The approvals of one ACP session: each becomes a `session/request_permission` (the call's
 * `tool_call` went out before it), and the answer goes to the session as strand's decision: allow
 * once → approve, allow always → always (the session keeps the tool allowed), reject once → reject.
 * strand has no policy for "never": reject always rejects, and later calls of that tool in this
 * session are rejected without asking for as long as this process serves it. A question is
 * withdrawn when the call no longer waits (answered elsewhere, timed out, its turn ended); a
 * client that goes away leaves the call waiting for another answer or the durable timeout.
 */
export class Permissions {
  private readonly asking = new Map<string, { controller: AbortController; turn: string | undefined }>();
  private readonly rejectedAlways = new Set<string>();

  constructor(private readonly deps: PermissionDeps) {}

  ask(item: ApprovalItem): void {
    if (this.asking.has(item.callId)) return;
    if (this.rejectedAlways.has(item.tool)) {
      void this.answer(item.callId, 'reject', `the person chose to always reject ${item.tool} in this session`);
      return;
    }
    const controller = new AbortController();
    this.asking.set(item.callId, { controller, turn: item.turn });
    const { sessionId, project, log } = this.deps;
    this.deps
      .ask({ sessionId, toolCall: toolCallStart(item.callId, item.tool, item.params, project), options: PERMISSION_OPTIONS }, controller.signal)
      .then(async (res) => {
        if (controller.signal.aborted || res.outcome.outcome !== 'selected') return;
        const optionId = res.outcome.optionId;
        const decision = DECISIONS[optionId];
        if (!decision) return log.warn({ optionId, call: item.callId }, 'the ACP client answered with an option that was not offered');
        if (optionId === 'reject-always') this.rejectedAlways.add(item.tool);
        await this.answer(item.callId, decision);
      })
      .catch((err: unknown) => log.debug({ err, call: item.callId }, 'a permission request ended without an answer'))
      .finally(() => {
        if (this.asking.get(item.callId)?.controller === controller) this.asking.delete(item.callId);
      });
  }

  /** The call no longer waits: its question is withdrawn. */
  settled(callId: string): void {
    this.asking.get(callId)?.controller.abort();
    this.asking.delete(callId);
  }

  /** A turn ended or was cancelled: its questions are withdrawn. */
  turnEnded(turn: string): void {
    for (const [callId, q] of this.asking) if (q.turn === turn) this.settled(callId);
  }

  close(): void {
    for (const callId of [...this.asking.keys()]) this.settled(callId);
  }

  private async answer(callId: string, decision: ApprovalCommand['decision'], reason?: string): Promise<void> {
    const { sessions, sessionId, principal, log } = this.deps;
    try {
      await (await sessions.open(sessionId, principal)).answerApproval({ tool_call_id: callId, decision, ...(reason ? { reason } : {}) });
    } catch (err) {
      // Answered elsewhere or timed out meanwhile: the session refuses, nothing changes.
      log.debug({ err, call: callId }, 'an approval answer was not taken');
    }
  }
}
