// The peer page: the same logbook written the ordinary way (supabase-js + zod), built like ours.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  preview: { host: '127.0.0.1' },
});
