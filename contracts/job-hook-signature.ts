import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature of a hook delivery (docs/jobs.md, "Triggers"): `sha256=<hex>`, the HMAC-SHA256 of the
 * raw body under the hook's secret, as GitHub's `X-Hub-Signature-256` spells it. The gateway checks it;
 * `strand hook sign` makes one to test a receiver or a forge's setup.
 */
export function signHookBody(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether `header` is the body's signature under `secret`, compared in constant time. */
export function hookSignatureMatches(secret: string, body: Uint8Array | string, header: string | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signHookBody(secret, body));
  const given = Buffer.from(header.trim().toLowerCase());
  // Unequal lengths tell nothing secret (every valid signature has the same length).
  return given.length === expected.length && timingSafeEqual(given, expected);
}
