import { z } from 'zod';
import { FALLBACK_MODEL, modelIdSchema } from './models';
import {
  RUNTIME_KEYS,
  SESSION_METADATA_KEYS,
  seenRequestSchema,
  sessionSettingsSchema,
  type SessionRecord,
  type SessionSettings,
} from './session-settings';

/**
 * The part of a session's creation `config` (POST /api/sessions, stored under `config`) that decides
 * its first settings. Other keys (`save_transcript`) belong to other readers and are left alone.
 */
const creationConfigSchema = z.object({
  auto_approve_readonly: z.boolean().optional(),
  approval_timeout_s: z.number().int().positive().optional(),
});

/**
 * The settings a session starts with: the model it was created with and the approval choices of its
 * creation config, every other setting at its default. New sessions store exactly this; records
 * written before settings were stored at creation are decoded through it too, so both agree.
 */
export function initialSessionSettings(model: string, config?: unknown): SessionSettings {
  const parsed = creationConfigSchema.safeParse(config ?? {});
  const created = parsed.success ? parsed.data : {};
  return sessionSettingsSchema.parse({
    model,
    approval: {
      ...(created.auto_approve_readonly !== undefined ? { auto_approve_readonly: created.auto_approve_readonly } : {}),
      ...(created.approval_timeout_s !== undefined ? { timeout_s: created.approval_timeout_s } : {}),
    },
  });
}

/** What a new session is created with (the model is one of the settings, never a key of its own). */
export interface NewSessionFacts {
  project_path: string;
  model: string;
  config?: Record<string, unknown>;
  owner?: string;
}

/**
 * The store metadata of a new session: project, owner and creation config as the gateway's own keys,
 * and the settings under the key the session workflow then owns (`strand.settings`). The model is
 * written once, inside the settings.
 */
export function newSessionMetadata(facts: NewSessionFacts): Record<string, unknown> {
  return {
    [SESSION_METADATA_KEYS.projectPath]: facts.project_path,
    [RUNTIME_KEYS.settings]: initialSessionSettings(facts.model, facts.config),
    ...(facts.config ? { [SESSION_METADATA_KEYS.config]: facts.config } : {}),
    ...(facts.owner ? { [SESSION_METADATA_KEYS.owner]: facts.owner } : {}),
  };
}

// Built once: a zod schema built per call costs more than the parse (every prompt reads a record).
const lastTurnSchema = z.number().int().nonnegative();
const seenRequestsSchema = seenRequestSchema.array();

/**
 * The one decoder of a session's stored metadata into its record: what a fresh session workflow run
 * loads, and what the gateway shows for a session whose workflow is not running. Both read it here,
 * so a dormant session's view is exactly what its workflow comes back with.
 *
 * Fallbacks, for records other writers made or that predate a key:
 * - settings: `strand.settings` when it decodes. Else the record predates settings stored at
 *   creation: the top-level `model` key (sessions created before the model was stored once) and the
 *   approval choices of `config`, as `initialSessionSettings` makes them. Else (no usable model at
 *   all: a session made directly on the store) `FALLBACK_MODEL`, never a process's configured
 *   default, which could differ between the gateway and the worker.
 * - a record that has both `strand.settings` and `model` keeps the settings' model: `model` is what
 *   the session was created with, the settings what it uses now.
 * - project_path `''`, last_turn 0, requests none, when missing or malformed.
 */
export function readSessionRecord(metadata: Record<string, unknown> | undefined): SessionRecord {
  const md = metadata ?? {};
  const lastTurn = lastTurnSchema.safeParse(md[RUNTIME_KEYS.lastTurn]);
  const requests = seenRequestsSchema.safeParse(md[RUNTIME_KEYS.requests]);
  const projectPath = md[SESSION_METADATA_KEYS.projectPath];
  return {
    project_path: typeof projectPath === 'string' ? projectPath : '',
    settings: readSettings(md),
    last_turn: lastTurn.success ? lastTurn.data : 0,
    requests: requests.success ? requests.data : [],
  };
}

function readSettings(md: Record<string, unknown>): SessionSettings {
  const stored = sessionSettingsSchema.safeParse(md[RUNTIME_KEYS.settings]);
  if (stored.success) return stored.data;
  const legacyModel = modelIdSchema.safeParse(md[LEGACY_MODEL_KEY]);
  return initialSessionSettings(legacyModel.success ? legacyModel.data : FALLBACK_MODEL, md[SESSION_METADATA_KEYS.config]);
}

/** Where sessions created before the model lived only in the settings kept it; read, never written. */
const LEGACY_MODEL_KEY = 'model';
