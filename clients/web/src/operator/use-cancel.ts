import { useState } from 'preact/hooks';

/**
 * A row's Cancel (a turn's, a job's): disabled once asked, then what the page made of the gateway's
 * answer (`cancelling…`, `it had already ended`) or why the request failed, shown beside it; a failed
 * request lets it be asked again.
 */
export function useCancel(cancel: () => Promise<string>): { cancelling: boolean; note: string | undefined; onCancel: () => Promise<void> } {
  const [cancelling, setCancelling] = useState(false);
  const [note, setNote] = useState<string | undefined>(undefined);
  const onCancel = async () => {
    setCancelling(true);
    try {
      setNote(await cancel());
    } catch (err) {
      setNote((err as Error).message);
      setCancelling(false);
    }
  };
  return { cancelling, note, onCancel };
}
