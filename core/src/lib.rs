//! Pure client logic for the geocache logbook.
