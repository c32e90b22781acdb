/** Every state the live region announces, in the words the page uses. */
export const STATUS = {
  loading: 'Loading entries…',
  noEntries: 'No entries yet.',
  offline: 'Offline: showing the entries kept on this device.',
  signing: 'Signing…',
  signed: 'Signed.',
  saved: 'Saved on this device: it will be sent when the connection returns.',
  sent: 'Signed: the sign saved on this device was sent.',
  notSigned: (reason: string) => `Not signed: ${reason}.`,
} as const;
