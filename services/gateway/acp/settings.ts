import type { SessionConfigOption, SessionMode, SessionModeState } from '@agentclientprotocol/sdk';
import type { ApprovalPolicy } from '../../../contracts/session-settings';
import { thinkingLevelSchema } from '../../../contracts/session-settings';
import { TOOL_DEFINITIONS } from '../../../contracts/tools';

/**
 * The session settings an ACP client can change: the approval policy as modes (`session/set_mode`),
 * the model and the thinking level as config options (`session/set_config_option`, categories
 * `model` and `thought_level`, which clients show as pickers).
 */

export const MODES: ReadonlyArray<SessionMode & { id: ModeId }> = [
  { id: 'ask', name: 'Ask before changes', description: 'Reads and searches run at once; edits, deletions and commands wait for your answer.' },
  { id: 'ask-all', name: 'Ask for everything', description: 'Every tool call waits for your answer, reads included.' },
  { id: 'auto', name: 'Run everything', description: 'Every tool call runs without asking.' },
  { id: 'plan', name: 'Plan only', description: 'Reads and searches run; edits, deletions and commands are refused. The agent ends with a plan.' },
];
export type ModeId = 'ask' | 'ask-all' | 'auto' | 'plan';

const CHANGING_TOOLS = TOOL_DEFINITIONS.filter((d) => !d.readOnly).map((d) => d.name);

/** The mode a policy amounts to: `plan` while plan mode is on; `auto` once every changing tool is always allowed (by the mode or by "allow always" answers). */
export function modeOf(policy: ApprovalPolicy): ModeId {
  if (policy.plan_mode) return 'plan';
  if (CHANGING_TOOLS.every((t) => policy.always_allow.includes(t)) && policy.auto_approve_readonly) return 'auto';
  return policy.auto_approve_readonly ? 'ask' : 'ask-all';
}

/**
 * The policy change a mode makes. Choosing an asking mode forgets earlier "allow always" answers;
 * `plan` only turns plan mode on (the rest of the policy applies again once another mode turns it off).
 */
export function policyOf(mode: ModeId): Partial<ApprovalPolicy> {
  if (mode === 'plan') return { plan_mode: true };
  if (mode === 'auto') return { plan_mode: false, auto_approve_readonly: true, always_allow: TOOL_DEFINITIONS.map((d) => d.name) };
  return { plan_mode: false, auto_approve_readonly: mode === 'ask', always_allow: [] };
}

export const isModeId = (id: string): id is ModeId => MODES.some((m) => m.id === id);

export function modeState(policy: ApprovalPolicy): SessionModeState {
  return { currentModeId: modeOf(policy), availableModes: MODES.map((m) => ({ ...m })) };
}

export const MODEL_OPTION = 'model';
export const THINKING_OPTION = 'thinking';

/** A model a session may use, as the picker shows it. */
export interface ModelEntry {
  ref: string;
  name: string;
}

/** The model and thinking-level pickers; the current model is listed even when no configured provider offers it any more. */
export function configOptions(models: ModelEntry[], current: { model: string; thinking_level: string }): SessionConfigOption[] {
  const listed = models.some((m) => m.ref === current.model) ? models : [{ ref: current.model, name: current.model }, ...models];
  return [
    {
      type: 'select',
      id: MODEL_OPTION,
      name: 'Model',
      category: 'model',
      currentValue: current.model,
      options: listed.map((m) => ({ value: m.ref, name: m.name === m.ref ? m.ref : `${m.name} (${m.ref})` })),
    },
    {
      type: 'select',
      id: THINKING_OPTION,
      name: 'Thinking',
      category: 'thought_level',
      currentValue: current.thinking_level,
      options: thinkingLevelSchema.options.map((level) => ({ value: level, name: level })),
    },
  ];
}
