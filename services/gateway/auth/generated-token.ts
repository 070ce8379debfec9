import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** The principal of a generated token: the one person who started the stack. */
export const GENERATED_TOKEN_PRINCIPAL = 'local';

/**
 * The token kept in `file` (STRAND_GENERATED_TOKEN_FILE), created on first use. This is how a gateway
 * that must listen beyond loopback (a container) is authenticated without anyone configuring tokens:
 * the first start writes a fresh random token (mode 0600) and announces it once; later starts read it
 * back, so clients keep working across restarts. `announce` receives a line for the log.
 */
export function readOrCreateToken(file: string, announce: (line: string) => void): string {
  const existing = readToken(file);
  if (existing !== undefined) {
    announce(`access token read from STRAND_GENERATED_TOKEN_FILE=${file} (generated on the first start; principal "${GENERATED_TOKEN_PRINCIPAL}")`);
    return existing;
  }
  const token = `strand_${randomBytes(32).toString('base64url')}`;
  if (!publishOnce(file, `${token}\n`)) {
    // Another gateway sharing the file created it between our read and our link: use that one.
    const theirs = readToken(file);
    if (theirs === undefined) throw new Error(`STRAND_GENERATED_TOKEN_FILE=${file} vanished while it was being created`);
    return theirs;
  }
  announce(
    `no tokens were configured, so an access token was generated and saved in ${file} (principal "${GENERATED_TOKEN_PRINCIPAL}"); ` +
      `clients send "Authorization: Bearer <token>". This is the only time it is printed: ${token}`,
  );
  return token;
}

function readToken(file: string): string | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`STRAND_GENERATED_TOKEN_FILE=${file}: ${(err as Error).message}`);
  }
  const token = text.trim();
  if (!token || /\s/.test(token)) {
    throw new Error(`STRAND_GENERATED_TOKEN_FILE=${file}: expected one token on one line; delete the file to have a new token generated`);
  }
  return token;
}

/**
 * Writes `content` to `file` only if no file is there, atomically: readers never see a half-written
 * token, and of two gateways starting together exactly one token wins. False when the file existed.
 */
function publishOnce(file: string, content: string): boolean {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const partial = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}`);
  fs.writeFileSync(partial, content, { mode: 0o600, flag: 'wx' });
  try {
    fs.linkSync(partial, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new Error(`STRAND_GENERATED_TOKEN_FILE=${file}: ${(err as Error).message}`);
  } finally {
    fs.rmSync(partial, { force: true });
  }
}
