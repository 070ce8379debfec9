import { ErrorCode } from '../../../contracts/errors';
import { createMemoryPromptImageStore } from '../../../contracts/prompt-image-store';
import { initialSessionSettings, newSessionMetadata } from '../../../contracts/session-record';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { PromptCommand } from '../../../contracts/session-workflow';
import type { SessionLiveView } from '../../../contracts/session-live-view';
import type { AgentEventReader } from '../events/agent-event-reader';
import type { SessionCommands } from '../temporal/session-commands';
import { SessionService } from './session-service';

/**
 * The session reference's side of image prompts (docs/images.md, prompt-image-intake.ts): images are checked and stored before
 * the prompt goes to the workflow, which gets references only; a model the catalog says takes no
 * images, a steering message with images and a bad image are refused with nothing stored and nothing sent.
 */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function setup(storedModel: string, runningModel?: string) {
  const meta = { session_id: 's1', title: '', description: '', status: 'idle' as const, metadata: newSessionMetadata({ project_path: '/p', model: storedModel }), created_at: 1, updated_at: 1, message_count: 0 };
  const sent: PromptCommand[] = [];
  const commands = {
    live: async () => (runningModel ? ({ settings: initialSessionSettings(runningModel) } as unknown as SessionLiveView) : undefined),
    prompt: async (_info: unknown, p: PromptCommand) => {
      sent.push(p);
      return { turn_id: 't1', turn_number: 1, agent_state: 'thinking' as const, queued: false, duplicate: false };
    },
  };
  const images = createMemoryPromptImageStore();
  const store = { get: async ({ session_id }: { session_id: string }) => (session_id === 's1' ? { meta } : null) } as unknown as StoreClient;
  const sessions = new SessionService({ store, commands: commands as unknown as SessionCommands, reader: {} as AgentEventReader, defaultModel: storedModel, configuredProviders: ['anthropic', 'openai'], images });
  return { sessions, sent, images };
}

test('the images are stored first; the workflow gets their references, not their bytes', async () => {
  const { sessions, sent, images } = setup('anthropic/claude-sonnet-4-6');
  await (await sessions.open('s1')).prompt({ text: 'look', behavior: 'queue' }, [{ media_type: 'image/png', data: PNG }]);
  expect(sent).toEqual([{ text: 'look', behavior: 'queue', images: [{ ref: expect.stringMatching(/^sha256-/), mime: 'image/png', bytes: 70 }] }]);
  expect(JSON.stringify(sent)).not.toContain(PNG.slice(0, 20));
  expect(images.size()).toBe(1);
  expect(Buffer.from((await images.get(sent[0]!.images![0]!.ref))!).toString('base64')).toBe(PNG);
});

test("the running workflow's model decides (a model just switched), else the stored one", async () => {
  const switched = setup('anthropic/claude-sonnet-4-6', 'openai/o3-mini');
  await expect((await switched.sessions.open('s1')).prompt({ text: 'look' }, [{ media_type: 'image/png', data: PNG }])).rejects.toMatchObject({
    code: ErrorCode.IMAGES_NOT_SUPPORTED,
    message: expect.stringMatching(/^openai\/o3-mini does not take images/),
    details: { model: 'openai/o3-mini' },
  });
  const dormant = setup('openai/o3-mini');
  await expect((await dormant.sessions.open('s1')).prompt({ text: 'look' }, [{ media_type: 'image/png', data: PNG }])).rejects.toMatchObject({ code: ErrorCode.IMAGES_NOT_SUPPORTED });
  for (const s of [switched, dormant]) {
    expect(s.sent).toEqual([]);
    expect(s.images.size()).toBe(0);
  }
  // Text alone is fine on such a model.
  await (await dormant.sessions.open('s1')).prompt({ text: 'plain' });
  expect(dormant.sent).toEqual([{ text: 'plain' }]);
});

test('steering with images and a bad image are refused before anything is stored', async () => {
  const { sessions, sent, images } = setup('anthropic/claude-sonnet-4-6');
  await expect((await sessions.open('s1')).prompt({ text: 'x', behavior: 'steer' }, [{ media_type: 'image/png', data: PNG }])).rejects.toMatchObject({ code: ErrorCode.INVALID_REQUEST, message: expect.stringContaining('steering') });
  await expect((await sessions.open('s1')).prompt({ text: 'x' }, [{ media_type: 'image/png', data: PNG }, { media_type: 'image/png', data: '@@@@' }])).rejects.toMatchObject({ code: ErrorCode.INVALID_REQUEST, message: expect.stringContaining('image 2') });
  expect(sent).toEqual([]);
  expect(images.size()).toBe(0);
});
