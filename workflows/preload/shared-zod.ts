import { z } from 'zod';

/**
 * Preloaded into the worker's shared V8 context (services/worker/workflow-bundle.ts): zod is
 * evaluated once and shared by every workflow run, then deep-frozen by the SDK, instead of being
 * evaluated again for each run (a turn is a new workflow run). Only stateless libraries may be shared
 * this way, and none of our schemas: zod defines some of a schema's properties lazily, which a frozen
 * schema cannot do. The export keeps webpack from dropping the import as unused.
 */

// Zod sets its global configuration (default locale, memoizer) on first use: done here, before the freeze.
z.object({ s: z.string().min(1) }).safeParse({ s: '' });

export const sharedZod = z;
