/** Every state the live region announces, in the words the page uses. */
export const STATUS = {
  loading: 'Loading entries…',
  noEntries: 'No entries yet.',
  offline: 'Offline: showing the entries kept on this device.',
  /** The read failed and nothing is shown: not "No entries yet.", which would say nobody has signed. */
  notLoaded: 'The entries could not be loaded.',
  /** The same while the browser says it is offline. */
  offlineNothingKept: 'Offline: no entries are kept on this device.',
  signing: 'Signing…',
  signed: 'Signed.',
  saved: 'Saved on this device: it will be sent when the connection returns.',
  sent: 'Signed: the sign saved on this device was sent.',
  notSigned: (reason: string) => `Not signed: ${reason}.`,
  /** Entries signed elsewhere shown since the last other message; the count makes each arrival a new announcement. */
  arrived: (count: number) => (count === 1 ? 'A new entry arrived.' : `${count} new entries arrived.`),
} as const;
