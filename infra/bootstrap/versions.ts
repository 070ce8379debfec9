/**
 * Pinned versions of the external binaries. Changing one here makes the next bootstrap build it
 * afresh (each version has its own cache directory).
 */

/** The last Temporal CLI tag that `go install` accepts (later go.mod files carry a replace directive). */
export const TEMPORAL_CLI_VERSION = '1.5.1';
export const TEMPORAL_CLI_MODULE = 'github.com/temporalio/cli/cmd/temporal';

/** nats-server 2.10+ (filter-subject arrays, stream metadata…); this tag's go.mod has no replace. */
export const NATS_SERVER_VERSION = '2.14.5';
export const NATS_SERVER_MODULE = 'github.com/nats-io/nats-server/v2';

/** The Java time-skipping test server (Maven coordinates). */
export const TEST_SERVER_VERSION = '1.38.0';
export const TEST_SERVER_ARTIFACT = 'io.temporal:temporal-test-server';
export const TEST_SERVER_MAIN_CLASS = 'io.temporal.testserver.TestServer';
