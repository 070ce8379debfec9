import { randomBytes } from 'node:crypto';

/** Where new ids and timestamps come from; tests inject deterministic ones. */
export interface IdsAndClock {
  newId(): string;
  now(): number;
}

/** Time-ordered, URL- and subject-safe ids: 9 chars of time (base36) + 10 random chars. */
export const defaultIdsAndClock: IdsAndClock = {
  newId: () => `${Date.now().toString(36).padStart(9, '0')}${randomBytes(8).toString('base64url').slice(0, 10)}`,
  now: () => Date.now(),
};
