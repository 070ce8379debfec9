import fs from 'node:fs';
import path from 'node:path';
import type { DockerTools } from './docker-tools';
import { mustRun, runCommand } from './run-command';

/**
 * One Compose project of strand's docker-compose.yml, under its own project name (so its containers
 * and volumes are never a user's `strand` stack), with its own environment (ports, projects dir).
 */
export class ComposeProject {
  constructor(
    private readonly tools: DockerTools,
    private readonly root: string,
    readonly name: string,
    private readonly vars: Record<string, string>,
    /** The compose file, relative to `root`. */
    readonly file = 'docker-compose.yml',
  ) {}

  private get env(): NodeJS.ProcessEnv {
    return { ...this.tools.env, ...this.vars };
  }

  /** The environment compose commands of this project run with (for a command run by hand, e.g. `logs -f`). */
  get environment(): NodeJS.ProcessEnv {
    return this.env;
  }

  /** The compose arguments of a subcommand of this project (file, directory, project name), after the compose binary's own. */
  argsFor(rest: string[]): string[] {
    return this.args(rest).slice(this.tools.compose.length - 1);
  }

  private args(rest: string[]): string[] {
    return [...this.tools.compose.slice(1), '-f', path.join(this.root, this.file), '--project-directory', this.root, '-p', this.name, ...rest];
  }

  /** Runs a compose subcommand; a failure is an error with the end of its output. */
  run(rest: string[], timeoutMs = 120_000, echo = false): Promise<string> {
    return mustRun(this.tools.compose[0]!, this.args(rest), { env: this.env, cwd: this.root, timeoutMs, echo });
  }

  /** The images the stack needs that are not on the engine: third-party images and the Dockerfile's bases. */
  async missingImages(): Promise<string[]> {
    const config = JSON.parse(await this.run(['config', '--format', 'json'])) as { services: Record<string, { image?: string; build?: { context: string; dockerfile?: string } }> };
    const needed = new Set<string>();
    for (const svc of Object.values(config.services)) {
      if (!svc.build) {
        if (svc.image) needed.add(svc.image);
        continue;
      }
      for (const base of dockerfileBases(path.resolve(svc.build.context, svc.build.dockerfile ?? 'Dockerfile'))) needed.add(base);
    }
    const missing: string[] = [];
    for (const image of needed) {
      const r = await runCommand(this.tools.docker, ['image', 'inspect', '--format', '{{.Id}}', image], { env: this.tools.env, timeoutMs: 30_000 });
      if (r.code !== 0) missing.push(image);
    }
    return missing;
  }

  /** Builds strand's image with the engine's classic builder unless DOCKER_BUILDKIT says otherwise (no buildx needed). */
  async buildStrandImage(): Promise<void> {
    const env = { ...this.tools.env, DOCKER_BUILDKIT: this.tools.env.DOCKER_BUILDKIT ?? '0' };
    await mustRun(this.tools.docker, ['build', '-t', 'strand:local', this.root], { env, cwd: this.root, timeoutMs: 30 * 60_000, echo: true });
  }

  /** Builds another image of the stack (`docker build -t tag context`), with the classic builder as above. */
  async buildImage(tag: string, context: string): Promise<void> {
    const env = { ...this.tools.env, DOCKER_BUILDKIT: this.tools.env.DOCKER_BUILDKIT ?? '0' };
    await mustRun(this.tools.docker, ['build', '-t', tag, path.resolve(this.root, context)], { env, cwd: this.root, timeoutMs: 30 * 60_000, echo: true });
  }

  /** Starts everything and returns once every service is healthy (or the one-shot setup has completed). */
  up(): Promise<string> {
    return this.run(['up', '-d', '--no-build', '--pull', 'never', '--wait', '--wait-timeout', '600'], 660_000, true);
  }

  /** Stops and removes the project's containers, network and volumes; never throws (it is cleanup). */
  async down(): Promise<void> {
    await runCommand(this.tools.compose[0]!, this.args(['down', '-v', '--remove-orphans', '-t', '10']), { env: this.env, cwd: this.root, timeoutMs: 180_000 });
  }

  /** `docker compose exec -T <service> <command…>`: its standard output. */
  exec(service: string, command: string[]): Promise<string> {
    return this.run(['exec', '-T', service, ...command]);
  }

  logs(service: string): Promise<string> {
    return this.run(['logs', '--no-color', '--no-log-prefix', service]);
  }

  /** The container of a service that runs once (compose ps -q), as the engine names it. */
  async containerOf(service: string): Promise<string> {
    const ids = await this.containersOf(service);
    if (ids.length !== 1) throw new Error(`compose project ${this.name} has ${ids.length} running ${service} containers, not one`);
    return ids[0]!;
  }

  /** Every running container of a service (full ids; a service with replicas has several). */
  async containersOf(service: string): Promise<string[]> {
    const ids = (await this.run(['ps', '-q', '--no-trunc', service])).split('\n').map((l) => l.trim()).filter(Boolean);
    if (ids.length === 0) throw new Error(`compose project ${this.name} has no running ${service} container`);
    return ids;
  }

  /** What the engine says of a container: its main process's pid on this host, restarts, health. */
  async inspect(container: string): Promise<{ pid: number; running: boolean; restarts: number; health: string; startedAt: string }> {
    const out = await mustRun(this.tools.docker, ['inspect', '-f', '{{.State.Pid}} {{.State.Running}} {{.RestartCount}} {{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}} {{.State.StartedAt}}', container], {
      env: this.tools.env,
      timeoutMs: 30_000,
    });
    const [pid, running, restarts, health, startedAt] = out.trim().split(' ');
    return { pid: Number(pid), running: running === 'true', restarts: Number(restarts), health: health ?? 'none', startedAt: startedAt ?? '' };
  }
}

/** The FROM images of a Dockerfile that are not its own earlier stages. */
export function dockerfileBases(dockerfile: string): string[] {
  const stages = new Set<string>();
  const bases: string[] = [];
  for (const line of fs.readFileSync(dockerfile, 'utf8').split('\n')) {
    const m = /^\s*FROM\s+(.*)$/i.exec(line);
    if (!m) continue;
    const words = m[1]!.trim().split(/\s+/).filter((w) => !w.startsWith('--'));
    if (words[0] && !stages.has(words[0]) && !bases.includes(words[0])) bases.push(words[0]);
    if (words[1]?.toLowerCase() === 'as' && words[2]) stages.add(words[2]);
  }
  return bases;
}
