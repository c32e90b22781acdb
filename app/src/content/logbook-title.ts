/**
 * The logbook's title: its heading (features/logbook) and the heading of the failure shown in its place
 * (app/), so the visitor knows where they are either way.
 */
export const LOGBOOK_TITLE = 'Geocache Signing Page';
