/** An integer ≥ `min` from the environment (a bench's setting), the fallback when unset; anything else names the variable. */
export function intFrom(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name}=${raw}: expected an integer ≥ ${min}`);
  return n;
}
