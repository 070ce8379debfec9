import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadStoreConfig } from './config';

describe('store configuration from file and environment', () => {
  test('defaults: fs adapter, 50 / 500', () => {
    const c = loadStoreConfig({ STRAND_STORE_DATA_DIR: '/tmp/x' });
    expect(c).toEqual({ adapter: { name: 'fs', config: { data_dir: '/tmp/x' } }, default_list_limit: 50, max_list_limit: 500 });
  });

  test('the environment overrides the file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-cfg-'));
    const file = path.join(dir, 'store.yaml');
    fs.writeFileSync(file, 'adapter:\n  name: fs\n  config:\n    data_dir: /from/file\ndefault_list_limit: 20\nmax_list_limit: 100\n');
    try {
      expect(loadStoreConfig({ STRAND_STORE_CONFIG: file })).toMatchObject({ adapter: { config: { data_dir: '/from/file' } }, default_list_limit: 20 });
      expect(loadStoreConfig({ STRAND_STORE_CONFIG: file, STRAND_STORE_DATA_DIR: '/env', STRAND_STORE_MAX_LIST_LIMIT: '30' })).toMatchObject({
        adapter: { config: { data_dir: '/env' } },
        default_list_limit: 20,
        max_list_limit: 30,
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('invalid values are reported with their names', () => {
    expect(() => loadStoreConfig({ STRAND_STORE_DEFAULT_LIST_LIMIT: 'lots' })).toThrow(/STRAND_STORE_DEFAULT_LIST_LIMIT=lots/);
    expect(() => loadStoreConfig({ STRAND_STORE_DEFAULT_LIST_LIMIT: '600' })).toThrow(/default_list_limit must not exceed max_list_limit/);
    expect(() => loadStoreConfig({ STRAND_STORE_ADAPTER: 'sqlite' })).toThrow(/invalid store configuration/);
  });
});
