import { createClient } from '@supabase/supabase-js';
import { env } from '../env';

/** One client for the page, as the supabase-js quick start writes it. */
export const supabase = createClient(env.supabaseUrl, env.supabaseAnonKey);
