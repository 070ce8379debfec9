import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { Message } from '../../../contracts/session-store/messages';
import { SESSION_METADATA_KEYS as KEYS } from '../../../contracts/session-settings';
import type { SessionService } from '../sessions/session-service';
import { filesChanged, render, type TranscriptFormat, type TranscriptSource } from './render';

/** Where saved transcripts go: STRAND_TRANSCRIPTS_DIR, else ~/.local/share/strand/transcripts. */
export function transcriptsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.STRAND_TRANSCRIPTS_DIR?.trim() || path.join(os.homedir(), '.local', 'share', 'strand', 'transcripts');
}

/** Transcripts of sessions: rendered on request, listed by project, saved when a session is deleted. */
export class Transcripts {
  constructor(private readonly deps: { store: StoreClient; sessions: SessionService; dir: string }) {}

  async source(sessionId: string, principal?: string): Promise<TranscriptSource> {
    const view = await this.deps.sessions.describe(sessionId, principal);
    const messages: TranscriptSource['messages'] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.messages({ session_id: sessionId, limit: 500, ...(cursor ? { cursor } : {}) });
      if (!page) break;
      for (const m of page.messages) if (m.message) messages.push({ entry_id: m.entry_id, message: m.message as Message });
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return { session_id: sessionId, title: view.title, project_path: view.project_path, model: view.model, started_at: view.started_at, messages };
  }

  async render(sessionId: string, format: TranscriptFormat, principal?: string) {
    return render(format, await this.source(sessionId, principal));
  }

  /** Sessions of a project (the caller's only), with the files their tool calls changed. */
  async list(project: string | undefined, principal?: string) {
    const page = await this.deps.sessions.list({ limit: 500, ...(project ? { project } : {}) }, principal);
    const transcripts = await Promise.all(
      page.sessions.map(async (s) => ({
        session_id: s.session_id,
        project_path: s.project_path,
        started_at: s.started_at,
        message_count: s.message_count,
        files_changed: filesChanged((await this.source(s.session_id, principal)).messages),
      })),
    );
    return { transcripts };
  }

  /**
   * Writes the session's transcript (markdown) when its config says `save_transcript`; returns the
   * file's path, or undefined. Called before a session is deleted.
   */
  async saveIfWanted(sessionId: string, principal?: string): Promise<string | undefined> {
    const meta = await this.deps.sessions.require(sessionId, principal);
    const config = (meta.metadata?.[KEYS.config] ?? {}) as { save_transcript?: boolean };
    if (!config.save_transcript) return undefined;
    const { body } = await this.render(sessionId, 'markdown', principal);
    await fs.mkdir(this.deps.dir, { recursive: true });
    const file = path.join(this.deps.dir, `${new Date(meta.created_at).toISOString().slice(0, 10)}-${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.md`);
    await fs.writeFile(file, body);
    return file;
  }
}
