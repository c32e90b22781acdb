import { describe, expect, it } from 'vitest';
import { STATUS } from './messages';
import { listStatus } from './use-list-status';

describe('listStatus', () => {
  it.each([
    // read, count, fromDevice, online → what the live region says
    ['loading', 0, false, true, STATUS.loading],
    ['loaded', 0, false, true, STATUS.noEntries],
    ['loaded', 3, false, true, ''],
    // A failed read is not an empty logbook: nobody is told that nobody has signed.
    ['failed', 0, false, true, STATUS.notLoaded],
    ['failed', 0, false, false, STATUS.offlineNothingKept],
    ['failed', 0, true, true, STATUS.notLoaded],
    ['failed', 0, true, false, STATUS.offlineNothingKept],
    ['failed', 3, true, true, STATUS.offline],
    ['loading', 3, true, false, STATUS.offline],
    ['loading', 3, true, true, ''],
  ] as const)('%s, %i shown, from the device %s, online %s → %j', (read, count, fromDevice, online, said) => {
    expect(listStatus({ read, count, fromDevice, online })).toBe(said);
  });
});
