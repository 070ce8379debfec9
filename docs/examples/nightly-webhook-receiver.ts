import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

/** The X-Strand-Signature header is `sha256=` + the HMAC-SHA256 of the raw body under the secret. */
function signatureMatches(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`);
  return header !== undefined && header.length === expected.length && timingSafeEqual(Buffer.from(header), expected);
}

export interface Delivery {
  event: string; // X-Strand-Event: job.finished | job.escalation
  id: string; // X-Strand-Delivery: the same on every retry, so a second copy can be dropped
  body: Record<string, unknown>; // job.finished: the job's report; job.escalation: the call that waits
}

/** Answers 401 to a body whose signature does not match (checked before parsing), 204 otherwise. */
export function nightlyReceiver(secret: string, onDelivery: (d: Delivery) => void): http.Server {
  const seen = new Set<string>();
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (!signatureMatches(secret, raw, req.headers['x-strand-signature'] as string | undefined)) return void res.writeHead(401).end();
      const id = String(req.headers['x-strand-delivery']);
      if (!seen.has(id)) onDelivery({ event: String(req.headers['x-strand-event']), id, body: JSON.parse(raw.toString('utf8')) });
      seen.add(id);
      res.writeHead(204).end();
    });
  });
}

// As a program (`STRAND_JOB_SECRET_NIGHTLY=… npx tsx nightly-webhook-receiver.ts`): one line per delivery.
if (require.main === module) {
  const secret = process.env.STRAND_JOB_SECRET_NIGHTLY;
  if (!secret) throw new Error('set STRAND_JOB_SECRET_NIGHTLY to the secret the worker signs with');
  nightlyReceiver(secret, ({ event, id, body }) => {
    if (event === 'job.finished') console.log(`${id}: ${String(body.status)}: ${String(body.summary)}`);
    else console.log(`${id}: ${String(body.tool)} waits for a person until ${String(body.deadline)}`);
  }).listen(8787, '127.0.0.1');
}
