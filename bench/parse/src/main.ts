// Times, in the browser, getting the entries from the response bytes to what a React list renders from:
// our wasm client against the peer's JSON.parse + zod, on the same bytes served from this page's origin
// (bench/lib/parse-bench.mjs serves them and drives this page).
import { createClient as createSupabaseClient } from '@supabase/supabase-js';
import { createClient, parseEntriesForBenchmark, type EntryList } from 'geocache-client';
import { LogEntriesSchema } from '../../peer/src/logbook/schema';

const KEY = 'parse-benchmark-key'; // the fixture server ignores it; both clients need one
const listUrl = `${location.origin}/rest/v1/geocache_logs?select=*&order=created_at.desc`;
const headers = { apikey: KEY, Authorization: `Bearer ${KEY}` };

const ours = createClient(location.origin, KEY, { auth: { autoRefreshToken: false, persistSession: false } });
const supabase = createSupabaseClient(location.origin, KEY, { auth: { autoRefreshToken: false, persistSession: false } });

/** Rows on a first screen of the list: what a virtualised list reads from our handle before it paints. */
const FIRST_SCREEN = 30;

/** The cost of getting our entries to React: the list keeps them in wasm memory; React reads visible rows. */
function readFirstScreen(list: EntryList): number {
  let characters = 0;
  for (let index = 0; index < Math.min(FIRST_SCREEN, list.length); index += 1) {
    characters += list.id(index) > 0 ? 1 : 0;
    characters += list.createdAt(index).length + list.name(index).length + list.message(index).length;
  }
  if (list.length > 0 && characters === 0) throw new Error('the first screen is empty');
  return list.length;
}

let cachedBytes: Uint8Array | undefined;
async function responseBytes(): Promise<Uint8Array> {
  cachedBytes ??= new Uint8Array(await (await fetch(listUrl, { headers })).arrayBuffer());
  return cachedBytes;
}

/** Each variant resolves to the number of entries it produced, and what to release outside the timing. */
interface Outcome {
  entries: number;
  release?: () => void;
}

const variants: Record<string, () => Promise<Outcome>> = {
  // Our page's whole path: request, parse, validate, order newest first, first screen read by React.
  ours: async () => {
    const list = await ours.listEntries();
    return { entries: readFirstScreen(list), release: () => list.free() };
  },
  // The peer's path without supabase-js's wrapper: the same request, text, JSON.parse, zod.
  'peer-fetch-json-zod': async () => {
    const response = await fetch(listUrl, { headers });
    return { entries: LogEntriesSchema.parse(JSON.parse(await response.text())).length };
  },
  // The peer page's own path: supabase-js (which reads the text and JSON.parses it), then zod.
  'peer-supabase-zod': async () => {
    const { data, error } = await supabase.from('geocache_logs').select('*').order('created_at', { ascending: false });
    if (error) throw error;
    return { entries: LogEntriesSchema.parse(data).length };
  },
  // The transport alone, for reference.
  'fetch-only': async () => {
    const response = await fetch(listUrl, { headers });
    return { entries: (await response.arrayBuffer()).byteLength };
  },
  // Parsing and validation alone, from bytes already in memory: our core (decode, validate, order) ...
  'memory-ours-core': async () => ({ entries: parseEntriesForBenchmark(await responseBytes()) }),
  // ... against UTF-8 decoding, JSON.parse and zod, and JSON.parse without validation.
  'memory-json-zod': async () => {
    const text = new TextDecoder().decode(await responseBytes());
    return { entries: LogEntriesSchema.parse(JSON.parse(text)).length };
  },
  'memory-json': async () => {
    const text = new TextDecoder().decode(await responseBytes());
    return { entries: (JSON.parse(text) as unknown[]).length };
  },
};

interface MeasureOptions {
  warmup: number;
  minRounds: number;
  maxRounds: number;
  minMs: number;
}

const collectGarbage = (globalThis as { gc?: () => void }).gc;

async function once(run: () => Promise<Outcome>): Promise<{ ms: number; entries: number }> {
  // A collection first (Chromium started with --expose-gc), so one run's garbage is not collected in the next.
  collectGarbage?.();
  const start = performance.now();
  const outcome = await run();
  const ms = performance.now() - start;
  outcome.release?.();
  return { ms, entries: outcome.entries };
}

/**
 * Times the named variants in rounds, one run of each per round in a rotating order, so load from elsewhere on
 * the machine falls on all of them alike.
 */
async function measure(names: string[], options: MeasureOptions) {
  const runs = names.map((name) => {
    const run = variants[name];
    if (!run) throw new Error(`unknown variant ${name}`);
    return run;
  });
  cachedBytes = undefined;
  const entries = names.map(() => 0);
  const timesMs = names.map((): number[] => []);
  for (let i = 0; i < options.warmup; i += 1) for (const run of runs) await once(run);
  const started = performance.now();
  for (let round = 0; round < options.maxRounds; round += 1) {
    if (round >= options.minRounds && performance.now() - started >= options.minMs) break;
    for (let k = 0; k < runs.length; k += 1) {
      const index = (k + round) % runs.length;
      const { ms, entries: count } = await once(runs[index]);
      timesMs[index].push(ms);
      entries[index] = count;
    }
  }
  return names.map((name, index) => ({ name, entries: entries[index], timesMs: timesMs[index] }));
}

Object.assign(window, { parseBench: { variants: Object.keys(variants), measure } });
