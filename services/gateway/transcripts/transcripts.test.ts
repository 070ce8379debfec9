import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { SessionRef, SessionService } from '../sessions/session-service';
import { Transcripts } from './transcripts';

/**
 * TRANSCRIPT_ERROR: a transcript that cannot be rendered, and one a delete cannot save (the
 * transcripts directory unusable, or the write failing) — each saying what failed and that the
 * session was kept.
 */
let tmp: string;
beforeEach(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-transcripts-'))));
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

const text = (t: string) => [{ type: 'text', text: t }];

function transcripts(dir: string, opts: { save?: boolean; broken?: boolean } = {}) {
  const messages = [
    { entry_id: 'e1', message: { role: 'user', content: text('hello'), timestamp: 1 } },
    // A stored message the renderer cannot read (content not a list of blocks).
    { entry_id: 'e2', message: opts.broken ? { role: 'assistant', content: 42, timestamp: 2 } : { role: 'assistant', content: text('hi'), model: 'm', provider: 'p', stop_reason: 'end', timestamp: 2 } },
  ];
  const store = { messages: async () => ({ messages }) } as unknown as StoreClient;
  const known = (id: string) => {
    if (id !== 's1') throw new StrandError(ErrorCode.SESSION_NOT_FOUND, `no session ${id}`);
  };
  const ref = {
    id: 's1',
    meta: { session_id: 's1', created_at: Date.parse('2026-01-02T00:00:00Z'), metadata: { config: { save_transcript: opts.save ?? true } } },
    describe: async () => ({ title: 'T', project_path: '/p', model: 'scripted/echo', started_at: 0 }),
  } as unknown as SessionRef;
  const sessions = { open: async (id: string) => (known(id), ref) } as unknown as SessionService;
  const t = new Transcripts({ store, sessions, dir });
  // What DELETE /api/sessions/{id} does: the session opened once, its saver asked for.
  return Object.assign(t, { saverFor: async (id: string) => t.saverIfWanted(await sessions.open(id)) });
}

test('a delete with save_transcript writes the markdown transcript and answers its path; without it nothing is written', async () => {
  const dir = path.join(tmp, 'out');
  const save = await transcripts(dir).saverFor('s1');
  const file = await save!();
  expect(file).toBe(path.join(dir, '2026-01-02-s1.md'));
  expect(fs.readFileSync(file, 'utf8')).toContain('hello');
  expect(await transcripts(path.join(tmp, 'unused'), { save: false }).saverFor('s1')).toBeUndefined();
  expect(fs.existsSync(path.join(tmp, 'unused'))).toBe(false);
});

test('a transcripts directory that is a file: TRANSCRIPT_ERROR before anything is written, saying the session was kept', async () => {
  const dir = path.join(tmp, 'in-the-way');
  fs.writeFileSync(dir, 'not a directory');
  const err = await transcripts(dir)
    .saverFor('s1')
    .catch((e: unknown) => e);
  expect(err).toMatchObject({ code: ErrorCode.TRANSCRIPT_ERROR, details: { session_id: 's1', deleted: false, transcripts_dir: dir } });
  expect((err as Error).message).toBe(`the transcript of session s1 cannot be saved: the transcripts directory ${dir} cannot be used (not a directory: a file is in the way); the session was not deleted`);
});

test('a write that fails after the check: TRANSCRIPT_ERROR naming the file, the session kept', async () => {
  const dir = path.join(tmp, 'out');
  const save = await transcripts(dir).saverFor('s1');
  fs.rmSync(dir, { recursive: true });
  fs.writeFileSync(dir, 'replaced by a file meanwhile');
  const err = await save!().catch((e: unknown) => e);
  expect(err).toMatchObject({ code: ErrorCode.TRANSCRIPT_ERROR, details: { session_id: 's1', deleted: false, path: path.join(dir, '2026-01-02-s1.md') } });
  expect((err as Error).message).toMatch(/could not be written to .*2026-01-02-s1\.md \(not a directory: a file is in the way\); the session was not deleted$/);
});

test('a conversation the renderer cannot read: TRANSCRIPT_ERROR on GET (with the format) and on delete (the session kept)', async () => {
  const t = transcripts(path.join(tmp, 'out'), { broken: true });
  for (const format of ['markdown', 'org'] as const) {
    const err = await t.render('s1', format).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.TRANSCRIPT_ERROR, message: `the transcript of session s1 could not be rendered as ${format}`, details: { session_id: 's1', format } });
    expect((err as Error).cause).toBeInstanceOf(TypeError);
  }
  const err = await (await t.saverFor('s1'))!().catch((e: unknown) => e);
  expect(err).toMatchObject({ code: ErrorCode.TRANSCRIPT_ERROR, message: 'the transcript of session s1 could not be rendered as markdown; the session was not deleted', details: { deleted: false } });
  // An unknown session is still SESSION_NOT_FOUND, not a transcript failure.
  await expect(t.render('nope', 'markdown')).rejects.toMatchObject({ code: ErrorCode.SESSION_NOT_FOUND });
});
