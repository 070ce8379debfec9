import { filesChanged, render, type TranscriptSource } from './render';

const src: TranscriptSource = {
  session_id: 's1',
  title: 'Fix the greeting',
  project_path: '/work/demo',
  model: 'anthropic/claude-sonnet-4-6',
  started_at: Date.UTC(2026, 10, 23, 8, 0, 0),
  messages: [
    { entry_id: 't1:user', message: { role: 'user', content: [{ type: 'text', text: 'Say strand\n* not world' }], timestamp: 1 } },
    {
      entry_id: 't1:s0:assistant',
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'The file says world.' },
          { type: 'text', text: 'Editing.' },
          { type: 'function_call', id: 'c1', function_id: 'edit_file', arguments: { path: 'notes.txt', old: 'world', new: 'strand' } },
        ],
        model: 'claude-sonnet-4-6',
        provider: 'anthropic',
        stop_reason: 'function_call',
        timestamp: 2,
      },
    },
    { entry_id: 't1:s0:tool:c1', message: { role: 'function_result', function_call_id: 'c1', function_id: 'edit_file', content: [{ type: 'text', text: 'edited notes.txt' }], is_error: false, timestamp: 3 } },
    { entry_id: 't1:s1:assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Done.' }], model: 'm', provider: 'p', stop_reason: 'end', timestamp: 4 } },
  ],
};

describe('transcripts', () => {
  test('json round-trips the conversation and names the files changed', () => {
    const out = render('json', src);
    expect(out.contentType).toMatch(/application\/json/);
    const parsed = JSON.parse(out.body);
    expect(parsed.messages).toEqual(src.messages);
    expect(parsed.files_changed).toEqual(['notes.txt']);
    expect(filesChanged(src.messages)).toEqual(['notes.txt']);
  });

  test('markdown renders tool calls and results readably and folds thinking', () => {
    const md = render('markdown', src).body;
    expect(md.startsWith('# Fix the greeting\n')).toBe(true);
    expect(md).toContain('- Model: `anthropic/claude-sonnet-4-6`');
    expect(md).toContain('<details><summary>Thinking</summary>\n\nThe file says world.\n\n</details>');
    expect(md).toContain('**Tool call: `edit_file`**\n\n```json\n{\n  "path": "notes.txt"');
    expect(md).toContain('**Result of `edit_file`**\n\n```\nedited notes.txt\n```');
  });

  test('org carries the headers, escapes lines that would be headings, and puts thinking in a drawer', () => {
    const org = render('org', src).body;
    expect(org).toMatch(/^#\+TITLE: Fix the greeting\n#\+DATE: 2026-11-23T08:00:00.000Z\n#\+SESSION_ID: s1\n#\+MODEL: anthropic\/claude-sonnet-4-6\n/);
    expect(org).toContain('* User\nSay strand\n,* not world');
    expect(org).toContain(':THINKING:\nThe file says world.\n:END:');
    expect(org).toContain('** Tool call: edit_file\n#+begin_src json');
    expect(org).toContain('** Result of edit_file\n#+begin_example\nedited notes.txt\n#+end_example');
  });
});

describe('images in transcripts', () => {
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const withImages: TranscriptSource = {
    ...src,
    messages: [
      {
        entry_id: 't1:user',
        message: { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', data: '', mime: 'image/png', ref: 'sha256-abc', bytes: 70 }], timestamp: 1 },
      },
      { entry_id: 't1:s0:tool:c1', message: { role: 'function_result', function_call_id: 'c1', function_id: 'screenshot', content: [{ type: 'image', data: png, mime: 'image/png' }], is_error: false, timestamp: 2 } },
    ],
  };

  test('markdown and org show an attachment line with the media type and size, never the base64', () => {
    const md = render('markdown', withImages).body;
    expect(md).toContain('## User\n\nWhat is this?\n[Attachment: image, image/png, 70 bytes]\n');
    expect(md).toContain('**Result of `screenshot`**\n\n```\n\n```\n\n[Attachment: image, image/png, 70 bytes]');
    const org = render('org', withImages).body;
    expect(org).toContain('* User\nWhat is this?\n[Attachment: image, image/png, 70 bytes]\n');
    expect(org).toContain('#+end_example\n[Attachment: image, image/png, 70 bytes]');
    for (const body of [md, org]) expect(body).not.toContain(png.slice(0, 20));
  });

  test('json keeps each image block with its type, size and reference but without its bytes', () => {
    const body = render('json', withImages).body;
    expect(body).not.toContain(png.slice(0, 20));
    const parsed = JSON.parse(body);
    expect(parsed.messages[0].message.content[1]).toEqual({ type: 'image', data: '', mime: 'image/png', ref: 'sha256-abc', bytes: 70 });
    expect(parsed.messages[1].message.content[0]).toEqual({ type: 'image', data: '', mime: 'image/png', bytes: 70 });
  });
});
