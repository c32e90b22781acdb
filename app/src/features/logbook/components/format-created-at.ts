// Created once: the viewer's locale and time zone, e.g. "Jan 1, 2024, 1:00 PM".
const localTime = /* @__PURE__ */ new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** An entry's time as the viewer reads it. */
export function formatCreatedAt(createdAt: string): string {
  const instant = new Date(createdAt);
  // The client has validated the timestamp, but a form this browser cannot parse is shown as sent
  // rather than breaking the page.
  return Number.isNaN(instant.getTime()) ? createdAt : localTime.format(instant);
}
