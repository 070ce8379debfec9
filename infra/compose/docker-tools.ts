import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { lastLines, runCommand } from './run-command';

/** A Docker engine that answers and a Compose v2 to drive it. */
export interface DockerTools {
  /** The docker CLI. */
  docker: string;
  /** The compose command: `docker compose`, or a standalone docker-compose binary. */
  compose: string[];
  /** The environment every docker/compose call gets (DOCKER_HOST when one had to be chosen). */
  env: NodeJS.ProcessEnv;
  /** Which engine and compose were found, for the log. */
  described: string;
}

export type FindResult = { ok: true; tools: DockerTools } | { ok: false; reason: string };

/**
 * The private engine and compose binary that a machine without Docker Hub may have set up for itself
 * (stand-in images built locally: infra/docker/README.md). Only looked at when the environment names
 * no engine and the default one does not answer.
 */
function localImagesCache(env: NodeJS.ProcessEnv): string {
  return env.STRAND_COMPOSE_CACHE || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'strand-local-images', 'compose');
}

/**
 * Finds what the compose e2e needs, without installing or downloading anything: the docker CLI
 * (DOCKER_BIN, else `docker`), an engine that answers (DOCKER_HOST when set; else the default, else the
 * local-images cache's socket) and Compose v2 (COMPOSE_BIN, else the `docker compose` plugin, else
 * `docker-compose`, else the cache's binary). When something is missing the reason says what.
 */
export async function findDockerTools(env: NodeJS.ProcessEnv = process.env): Promise<FindResult> {
  const docker = env.DOCKER_BIN?.trim() || 'docker';
  const cli = await runCommand(docker, ['--version'], { env, timeoutMs: 10_000 });
  if (cli.spawnError) return { ok: false, reason: `no docker command (${docker}: ${cli.spawnError.code ?? cli.spawnError.message})` };

  const cache = localImagesCache(env);
  const hosts = env.DOCKER_HOST?.trim() ? [env.DOCKER_HOST.trim()] : [undefined, ...(fs.existsSync(path.join(cache, 'docker.sock')) ? [`unix://${path.join(cache, 'docker.sock')}`] : [])];
  const failures: string[] = [];
  let engineEnv: NodeJS.ProcessEnv | undefined;
  let engine = '';
  for (const host of hosts) {
    const tryEnv = host ? { ...env, DOCKER_HOST: host } : env;
    const v = await runCommand(docker, ['version', '--format', '{{.Server.Version}}'], { env: tryEnv, timeoutMs: 15_000 });
    if (v.code === 0 && v.stdout.trim()) {
      engineEnv = tryEnv;
      engine = `Docker engine ${v.stdout.trim()} at ${host ?? 'the default address'}`;
      break;
    }
    failures.push(`${host ?? 'the default address'}: ${lastLines(v.stderr || v.stdout, 1) || 'no answer'}`);
  }
  if (!engineEnv) return { ok: false, reason: `no Docker engine answers (${failures.join('; ')})` };

  const composeCandidates: string[][] = [];
  if (env.COMPOSE_BIN?.trim()) composeCandidates.push([env.COMPOSE_BIN.trim()]);
  else {
    composeCandidates.push([docker, 'compose'], ['docker-compose']);
    const bins = fs.existsSync(path.join(cache, 'bin')) ? fs.readdirSync(path.join(cache, 'bin')).filter((f) => f.startsWith('docker-compose-')).sort() : [];
    for (const b of bins.reverse()) composeCandidates.push([path.join(cache, 'bin', b)]);
  }
  for (const compose of composeCandidates) {
    const v = await runCommand(compose[0]!, [...compose.slice(1), 'version', '--short'], { env: engineEnv, timeoutMs: 15_000 });
    const version = v.stdout.trim();
    // Compose v1 (python) does not know the file's `name:` or `--wait`.
    if (v.code === 0 && /^v?2\./.test(version)) {
      return { ok: true, tools: { docker, compose, env: engineEnv, described: `${engine}; compose ${version} (${compose.join(' ')})` } };
    }
  }
  return { ok: false, reason: `no Docker Compose v2 (tried ${composeCandidates.map((c) => c.join(' ')).join(', ')}; COMPOSE_BIN names one)` };
}
