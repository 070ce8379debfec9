import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dockerfileBases } from './compose-project';
import { findDockerTools } from './docker-tools';

describe('compose e2e helpers', () => {
  test("the images a Dockerfile needs are its FROM images, not its own stages", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-dockerfile-'));
    try {
      const file = path.join(dir, 'Dockerfile');
      fs.writeFileSync(file, 'FROM --platform=linux/amd64 node:20 AS deps\nRUN true\nfrom deps AS build\nFROM debian:bookworm\nCOPY --from=build /a /a\nFROM node:20\n');
      expect(dockerfileBases(file)).toEqual(['node:20', 'debian:bookworm']);
      // strand's own: the one base image the e2e must find on the engine before building.
      expect(dockerfileBases(path.resolve(__dirname, '../../Dockerfile'))).toEqual(['node:20.18-bookworm-slim']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('no docker command: a reason naming it, nothing else tried', async () => {
    const found = await findDockerTools({ ...process.env, DOCKER_BIN: '/nonexistent/docker' });
    expect(found).toEqual({ ok: false, reason: 'no docker command (/nonexistent/docker: ENOENT)' });
  });
});
