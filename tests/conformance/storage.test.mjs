// @ts-check
// The storage cases (storage-cases.mjs) with @supabase/supabase-js's own storage client: each case on a fresh
// in-memory emulator started with the case's policies.
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@supabase/supabase-js';
import { STORAGE_CASES } from './storage-cases.mjs';
import { startBackend } from './support.mjs';

const SERVER_SIDE = { auth: { persistSession: false, autoRefreshToken: false } };

for (const storageCase of STORAGE_CASES) {
  test(storageCase.name, async (t) => {
    const { emulator, anon, service } = await startBackend(t, {
      extraArgs: storageCase.policies.flatMap((policy) => ['--storage-policy', policy]),
    });
    const user = createClient(emulator.url, emulator.anonKey, SERVER_SIDE);
    const email = `storage-${storageCase.policies.length}-${Date.now()}@example.com`;
    const { error } = await user.auth.signUp({ email, password: 'a long enough password' });
    if (error !== null) throw new Error(`sign-up failed: ${error.message}`);
    await storageCase.run({ admin: service, anon, user, url: emulator.url, sleep });
  });
}
