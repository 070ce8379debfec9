import { makeHarness } from '../contract/harness';
import { describeStoreContract } from '../contract/store-contract';
import { MemoryStorage } from './memory-storage';

describeStoreContract('memory adapter', async () => {
  const storage = new MemoryStorage();
  return makeHarness(() => storage);
});
