/** The same build-time configuration as ours: VITE_LOGBOOK_OPEN, VITE_SUPABASE_URL, VITE_SUPABASE_ANON_KEY. */
export const env = {
  logbookOpen: import.meta.env.VITE_LOGBOOK_OPEN === 'true',
  supabaseUrl: String(import.meta.env.VITE_SUPABASE_URL ?? ''),
  supabaseAnonKey: String(import.meta.env.VITE_SUPABASE_ANON_KEY ?? ''),
};
