import { loadClientCode, loadedClientCode } from './client-code';
import type { ChangeSource } from '../device-copy/changes-catch-up';

/** The page's client's reads of the removals and restores (device-copy/changes-catch-up.ts); each rejects with its error. */
export const clientChanges: ChangeSource = {
  async listChanges(after, limit) {
    return (await client()).listChanges(after, limit);
  },
  async newestChange() {
    return (await client()).newestChange();
  },
  async entriesById(ids) {
    const list = await (await client()).entriesById(new Float64Array(ids));
    try {
      return list.toArray();
    } finally {
      list.free();
    }
  },
};

async function client() {
  const { getClient } = loadedClientCode() ?? (await loadClientCode());
  return getClient();
}
