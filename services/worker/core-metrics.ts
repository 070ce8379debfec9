import net from 'node:net';
import type { TelemetryOptions } from '@temporalio/worker';

/**
 * The Temporal SDK's own worker metrics (task slots, poll and schedule-to-start latencies, sticky
 * cache, activity and workflow task outcomes), which the SDK's Rust core exports as Prometheus text
 * on a listener of its own. That listener is on loopback at a port picked here, and the worker's
 * /metrics appends what it answers to strand's metrics, so a scraper reads one page per worker.
 */
export interface CoreMetrics {
  /** Goes into `Runtime.install({ telemetryOptions })`. */
  telemetry: TelemetryOptions;
  /** The core's metrics now, as Prometheus text ('' when it does not answer). */
  scrape(): Promise<string>;
}

const HOST = '127.0.0.1';
const SCRAPE_TIMEOUT_MS = 2_000;

/** A free loopback port, released before it is returned (the core binds it right after). */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, HOST, () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function coreMetrics(): Promise<CoreMetrics> {
  const port = await freeLoopbackPort();
  return {
    telemetry: {
      metrics: {
        // Prometheus naming conventions: counters end in _total, durations are seconds and say so.
        prometheus: { bindAddress: `${HOST}:${port}`, countersTotalSuffix: true, useSecondsForDurations: true, unitSuffix: true },
      },
    },
    async scrape() {
      try {
        const res = await fetch(`http://${HOST}:${port}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) });
        return res.ok ? await res.text() : '';
      } catch {
        return '';
      }
    },
  };
}
