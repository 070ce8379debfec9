import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { runLogged, say, which } from './run-command';
import { TEST_SERVER_ARTIFACT, TEST_SERVER_MAIN_CLASS, TEST_SERVER_VERSION } from './versions';

/*
 * The Java time-skipping test server, run through a wrapper the Temporal SDK starts as an
 * "existing-path" executable. The SDK passes exactly one argument (the port), waits ~5 s for it to
 * listen, and SIGKILLs the PID it started, so the wrapper must `exec` java and pass "$@" untouched
 * (never `--enable-time-skipping`: the TS client then fails with "Unbalanced lock and unlock calls").
 *
 * Start time to a listening port, measured on this machine kind (2 cores, JDK 17, 5 runs each):
 *   plain JVM ≈ 1.0–1.1 s; with -XX:TieredStopAtLevel=1 -XX:+UseSerialGC ≈ 0.9–1.0 s;
 *   through this wrapper (those flags + the AppCDS archive): median 0.40 s idle, 0.52 s with the
 *   other core busy (a `node -e 'for(;;){}'` loop) — far inside the SDK's 5 s window.
 * So the wrapper uses a dynamic AppCDS archive, created once here, and those cheap start-up flags.
 */
const JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xmx256m', '-Xss512k'];

export interface TestServerFiles {
  dir: string;
  pom: string;
  classpath: string;
  archive: string;
  wrapper: string;
}

export function testServerFiles(cacheDir: string): TestServerFiles {
  const dir = path.join(cacheDir, `temporal-test-server-${TEST_SERVER_VERSION}`);
  return {
    dir,
    pom: path.join(dir, 'pom.xml'),
    classpath: path.join(dir, 'classpath.txt'),
    archive: path.join(dir, 'app.jsa'),
    wrapper: path.join(dir, 'temporal-test-server.sh'),
  };
}

function pomXml(): string {
  const [groupId, artifactId] = TEST_SERVER_ARTIFACT.split(':');
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <!-- Throwaway project: only resolves the test server's runtime classpath for strand's bootstrap. -->
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.strand</groupId><artifactId>temporal-test-server-classpath</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>${groupId}</groupId><artifactId>${artifactId}</artifactId><version>${TEST_SERVER_VERSION}</version></dependency>
    <!-- Silences slf4j 1.7's "no binder" warning on every start. -->
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-nop</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
`;
}

/** The wrapper script's text: exec java with our flags and the SDK's arguments, nothing else. */
export function wrapperScript(java: string, classpath: string, archive: string): string {
  return `#!/bin/sh
# Temporal time-skipping test server ${TEST_SERVER_VERSION}, written by strand's bootstrap.
# The SDK passes exactly the port and SIGKILLs this PID: exec keeps that PID the JVM's, and "$@" is
# passed untouched (never add --enable-time-skipping).
exec '${java}' -XX:SharedArchiveFile='${archive}' -Xshare:auto ${JVM_FLAGS.join(' ')} -cp '${classpath}' ${TEST_SERVER_MAIN_CLASS} "$@"
`;
}

/** Whether every cached piece is present: wrapper, classpath, each jar on it, and the CDS archive. */
export function testServerReady(files: TestServerFiles): boolean {
  try {
    const cp = fs.readFileSync(files.classpath, 'utf8').trim();
    if (!cp) return false;
    for (const jar of cp.split(path.delimiter)) if (!fs.existsSync(jar)) return false;
    fs.accessSync(files.wrapper, fs.constants.X_OK);
    return fs.statSync(files.archive).size > 0;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen({ host: '127.0.0.1', port: 0 }, () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

async function waitListening(port: number, timeoutMs: number, dead: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && !dead()) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect({ host: '127.0.0.1', port }, () => {
        sock.destroy();
        resolve(true);
      });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the test server did not listen on port ${port} within ${timeoutMs} ms`);
}

/**
 * Starts the server once with -XX:ArchiveClassesAtExit, waits until it serves, and stops it with
 * SIGTERM so the JVM writes the archive of every class it loaded on the way to serving.
 */
async function createArchive(java: string, classpath: string, archive: string): Promise<void> {
  const tmp = `${archive}.tmp`;
  fs.rmSync(tmp, { force: true });
  const port = await freePort();
  const child = spawn(java, [`-XX:ArchiveClassesAtExit=${tmp}`, ...JVM_FLAGS, '-cp', classpath, TEST_SERVER_MAIN_CLASS, String(port)], { stdio: 'ignore' });
  let exited = false;
  const done = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));
  try {
    await waitListening(port, 60_000, () => exited);
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    child.kill('SIGTERM');
    await done;
  }
  if (!fs.existsSync(tmp) || fs.statSync(tmp).size === 0) throw new Error(`the JVM did not write the class-data archive ${tmp}`);
  fs.renameSync(tmp, archive);
}

/** Resolves the test server's classpath with Maven, builds its CDS archive, writes the wrapper. */
export async function ensureTestServer(cacheDir: string): Promise<string> {
  const files = testServerFiles(cacheDir);
  if (testServerReady(files)) {
    say(`temporal-test-server ${TEST_SERVER_VERSION}: cached at ${files.wrapper}`);
    return files.wrapper;
  }
  const java = which('java');
  if (!java) throw new Error('temporal-test-server: java not found on PATH; install a JDK 17 or newer');
  const mvn = which('mvn');
  if (!mvn) throw new Error('temporal-test-server: mvn not found on PATH; install Maven 3 to resolve io.temporal:temporal-test-server');
  fs.mkdirSync(files.dir, { recursive: true });
  fs.writeFileSync(files.pom, pomXml());
  say(`temporal-test-server ${TEST_SERVER_VERSION}: resolving with Maven…`);
  await runLogged('maven', mvn, ['-q', '-B', '-Dstyle.color=never', '-f', files.pom, 'dependency:build-classpath', `-Dmdep.outputFile=${files.classpath}`], { cwd: files.dir });
  const classpath = fs.readFileSync(files.classpath, 'utf8').trim();
  if (!classpath) throw new Error(`temporal-test-server: Maven wrote an empty classpath to ${files.classpath}`);
  say('temporal-test-server: creating the class-data-sharing archive (faster JVM start)…');
  await createArchive(java, classpath, files.archive);
  const tmpWrapper = `${files.wrapper}.tmp`;
  fs.writeFileSync(tmpWrapper, wrapperScript(java, classpath, files.archive), { mode: 0o755 });
  fs.renameSync(tmpWrapper, files.wrapper);
  say(`temporal-test-server ${TEST_SERVER_VERSION}: ready at ${files.wrapper}`);
  return files.wrapper;
}
