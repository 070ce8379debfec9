import { useEffect, useState } from 'preact/hooks';
import type { JobWatch } from './job-watch';

/** Draws the component again whenever the job (its status, progress, report) changes. */
export function useJob(job: JobWatch | undefined): number {
  const [version, setVersion] = useState(0);
  useEffect(() => job?.subscribe(() => setVersion((v) => v + 1)), [job]);
  return version;
}
