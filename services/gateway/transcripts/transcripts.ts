import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { Message } from '../../../contracts/session-store/messages';
import { SESSION_METADATA_KEYS as KEYS } from '../../../contracts/session-settings';
import type { SessionRef, SessionService } from '../sessions/session-service';
import { filesChanged, render, type TranscriptFormat, type TranscriptSource } from './render';

/** Where saved transcripts go: STRAND_TRANSCRIPTS_DIR, else ~/.local/share/strand/transcripts. */
export function transcriptsDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.STRAND_TRANSCRIPTS_DIR?.trim() || path.join(os.homedir(), '.local', 'share', 'strand', 'transcripts');
}

/** Transcripts of sessions: rendered on request, listed by project, saved when a session is deleted. */
export class Transcripts {
  constructor(private readonly deps: { store: StoreClient; sessions: SessionService; dir: string }) {}

  async source(session: SessionRef): Promise<TranscriptSource> {
    const sessionId = session.id;
    const view = await session.describe();
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

  /** The transcript in `format`; TRANSCRIPT_ERROR when it cannot be rendered (reading the session fails as reads do). */
  async render(sessionId: string, format: TranscriptFormat, principal?: string) {
    return this.renderOf(await this.deps.sessions.open(sessionId, principal), format);
  }

  private async renderOf(session: SessionRef, format: TranscriptFormat) {
    const sessionId = session.id;
    const source = await this.source(session);
    try {
      return render(format, source);
    } catch (err) {
      throw new StrandError(ErrorCode.TRANSCRIPT_ERROR, `the transcript of session ${sessionId} could not be rendered as ${format}`, { session_id: sessionId, format }, { cause: err });
    }
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
        files_changed: filesChanged((await this.source(await this.deps.sessions.open(s.session_id, principal))).messages),
      })),
    );
    return { transcripts };
  }

  /**
   * For `DELETE /api/sessions/{id}`: when the session's config says `save_transcript`, checks that the
   * transcripts directory can take the file (created if missing) and returns the writer, to be called
   * once the session's turn has stopped and before the session is deleted; undefined when no
   * transcript is wanted. A directory that cannot be used is TRANSCRIPT_ERROR before anything is
   * touched; a transcript that then cannot be rendered or written is TRANSCRIPT_ERROR too. Either way
   * the session is kept (never deleted without the transcript its owner asked for).
   */
  async saverIfWanted(session: SessionRef): Promise<(() => Promise<string>) | undefined> {
    const { meta, id: sessionId } = session;
    const config = (meta.metadata?.[KEYS.config] ?? {}) as { save_transcript?: boolean };
    if (!config.save_transcript) return undefined;
    const { dir } = this.deps;
    const kept = { session_id: sessionId, deleted: false };
    try {
      await fs.mkdir(dir, { recursive: true });
      if (!(await fs.stat(dir)).isDirectory()) throw Object.assign(new Error(`${dir} is not a directory`), { code: 'ENOTDIR' });
      await fs.access(dir, fs.constants.W_OK | fs.constants.X_OK);
    } catch (err) {
      throw new StrandError(
        ErrorCode.TRANSCRIPT_ERROR,
        `the transcript of session ${sessionId} cannot be saved: the transcripts directory ${dir} cannot be used (${fsProblem(err)}); the session was not deleted`,
        { ...kept, transcripts_dir: dir },
        { cause: err },
      );
    }
    const file = path.join(dir, `${new Date(meta.created_at).toISOString().slice(0, 10)}-${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.md`);
    return async () => {
      let body: string;
      try {
        body = (await this.renderOf(session, 'markdown')).body;
      } catch (err) {
        if (!(err instanceof StrandError) || err.code !== ErrorCode.TRANSCRIPT_ERROR) throw err;
        throw new StrandError(ErrorCode.TRANSCRIPT_ERROR, `${err.message}; the session was not deleted`, { ...err.details, ...kept }, { cause: err.cause });
      }
      try {
        await fs.writeFile(file, body);
      } catch (err) {
        await fs.rm(file, { force: true }).catch(() => undefined);
        throw new StrandError(ErrorCode.TRANSCRIPT_ERROR, `the transcript of session ${sessionId} could not be written to ${file} (${fsProblem(err)}); the session was not deleted`, { ...kept, path: file }, { cause: err });
      }
      return file;
    };
  }
}

/** Why a file system call failed, in words for a client (the cause, with its code, goes to the log). */
export function fsProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EEXIST':
    case 'ENOTDIR':
      return 'not a directory: a file is in the way';
    case 'EACCES':
    case 'EPERM':
      return "permission denied to the gateway's user";
    case 'EROFS':
      return 'read-only file system';
    case 'ENOSPC':
      return 'no space left on the device';
    default:
      return code ?? 'unknown error';
  }
}
