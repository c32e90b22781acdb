/** An entry's `created_at` in the owner's local time, or the server's text when it is not a time. */
export function entryTime(createdAt: string): string {
  const date = new Date(createdAt);
  return Number.isNaN(date.getTime()) ? createdAt : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}
