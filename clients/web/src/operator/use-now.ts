import { useEffect, useState } from 'preact/hooks';

/** The current time, renewed every `ms` while `active`: live elapsed times without a poll. */
export function useNow(ms: number, active = true): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms, active]);
  return now;
}
