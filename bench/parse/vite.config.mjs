// The parse + validation harness: our wasm client and the peer's supabase-js + zod in one page, built like the
// app (the wasm package consumed in place through an alias).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import wasm from 'vite-plugin-wasm';

export default defineConfig({
  plugins: [wasm()],
  resolve: {
    alias: { 'geocache-client': fileURLToPath(new URL('../../wasm/pkg-bench', import.meta.url)) },
  },
});
