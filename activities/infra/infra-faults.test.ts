import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../contracts/failures';
import { StoreError, StoreErrorCode } from '../../contracts/session-store/errors';
import { OutboxUnavailableError } from '../events/jetstream-outbox';
import { infraFailure, isInfraFault, rideOut } from './infra-faults';

describe('infrastructure faults', () => {
  test('a store that does not answer, NATS gone and the outbox giving up are infrastructure; a bad request is not', () => {
    expect(isInfraFault(new StoreError(StoreErrorCode.STORAGE, 'no answer'))).toBe(true);
    expect(isInfraFault(ApplicationFailure.retryable('no answer', FailureType.STORE_UNAVAILABLE))).toBe(true);
    expect(isInfraFault(new OutboxUnavailableError('gone'))).toBe(true);
    expect(isInfraFault(Object.assign(new Error('503'), { code: '503' }))).toBe(true);
    expect(isInfraFault(Object.assign(new Error('closed'), { code: 'CONNECTION_CLOSED' }))).toBe(true);
    expect(isInfraFault(new StoreError(StoreErrorCode.INVALID_REQUEST, 'bad'))).toBe(false);
    expect(isInfraFault(new Error('a bug'))).toBe(false);
    expect(infraFailure(new OutboxUnavailableError('gone'))).toMatchObject({ type: FailureType.INFRA_UNAVAILABLE, nonRetryable: false, message: 'gone' });
  });

  test('rideOut waits out an outage of the store, then returns what the call returns', async () => {
    let calls = 0;
    const waits: number[] = [];
    const result = await rideOut(
      async () => {
        if (++calls < 3) throw new StoreError(StoreErrorCode.STORAGE, 'the session store did not answer');
        return 'stored';
      },
      { onWait: (_err, attempt) => waits.push(attempt) },
    );
    expect(result).toBe('stored');
    expect(waits).toEqual([1, 2]);
  });

  test('rideOut gives up after its bound, and never retries what is not an outage', async () => {
    let t = 0;
    const outage = rideOut(async () => {
      t += 60_000;
      throw new StoreError(StoreErrorCode.STORAGE, 'down');
    }, { maxMs: 120_000, now: () => t });
    await expect(outage).rejects.toThrow('down');
    let calls = 0;
    await expect(rideOut(async () => {
      calls++;
      throw new StoreError(StoreErrorCode.INVALID_REQUEST, 'bad');
    })).rejects.toThrow('bad');
    expect(calls).toBe(1);
  });
});
