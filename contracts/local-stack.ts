/**
 * Where the local stack (`npm start`) listens, for the stack runner and the clients that find it
 * (`strand chat`): loopback, on these ports unless the environment names others
 * (docs/configuration.md). Kept here so a client needs nothing of the runner itself.
 */
export const LOCAL_STACK_HOST = '127.0.0.1';
export const LOCAL_STACK_PORTS = { temporal: 7233, temporalUi: 8233, nats: 4222, gateway: 9420, edn: 9421 } as const;

/** The port `name` (e.g. STRAND_GATEWAY_PORT) names, or `fallback`; an invalid one is an error that says so. */
export function envPort(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name}=${raw} is not a TCP port`);
  return n;
}
