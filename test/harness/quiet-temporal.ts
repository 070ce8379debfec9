import { DefaultLogger, Runtime } from '@temporalio/worker';

/**
 * Keeps the Temporal SDK's worker logs to warnings in tests (STRAND_TEST_VERBOSE shows everything).
 * Import first in a test file: the runtime can be installed only before any worker or connection.
 */
Runtime.install({ logger: new DefaultLogger(process.env.STRAND_TEST_VERBOSE ? 'INFO' : 'WARN') });
