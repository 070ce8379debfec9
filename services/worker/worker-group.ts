import type { Worker } from '@temporalio/worker';

/**
 * The worker's Temporal workers run as one: the shared task queue's and this host's
 * (host-queue.ts). Both run the same workflows and activities; they start, stop and fail together.
 */
export class WorkerGroup {
  constructor(readonly workers: Worker[]) {}

  /** Runs every worker; resolves when all have stopped, rejects when one fails (after stopping the others). */
  async run(): Promise<void> {
    const runs = this.workers.map((w) =>
      w.run().catch((err: unknown) => {
        this.shutdown();
        throw err;
      }),
    );
    const results = await Promise.allSettled(runs);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** The first worker's state (they move together): RUNNING while serving. */
  getState(): ReturnType<Worker['getState']> {
    return this.workers[0]!.getState();
  }

  shutdown(): void {
    for (const w of this.workers) if (w.getState() === 'RUNNING') w.shutdown();
  }
}
