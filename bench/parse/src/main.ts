// Times, in the browser, getting every entry from the response bytes to what a React list renders from: our
// wasm client against the peer's JSON.parse + zod, on the same bytes served from this page's origin
// (bench/lib/parse-bench.mjs serves them and drives this page). The server caps a read at 1,000 rows, so every
// variant reads the list as the page does: keyset pages of 1,000, newest first, until the empty page.
import { createClient as createSupabaseClient } from '@supabase/supabase-js';
import { createClient, parseEntriesForBenchmark, type EntryList } from 'geocache-client';
import { LogEntriesSchema, type LogEntry } from '../../peer/src/logbook/schema';

const KEY = 'parse-benchmark-key'; // the fixture server ignores it; both clients need one
const PAGE_SIZE = 1000;
const listUrl = `${location.origin}/rest/v1/geocache_logs`;
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

/** The keyset filter after an entry, as our client writes it. */
function after(last: LogEntry): string {
  const quoted = `"${last.created_at.replace(/["\\]/g, (c) => `\\${c}`)}"`;
  return `created_at.lt.${quoted},and(created_at.eq.${quoted},id.lt.${last.id})`;
}

/** The query of a page after `last` (the first page without one). */
function pageQuery(last: LogEntry | undefined): string {
  const query = new URLSearchParams({ select: '*', order: 'created_at.desc,id.desc', limit: String(PAGE_SIZE) });
  if (last) query.set('or', `(${after(last)})`);
  return query.toString();
}

/** Reads pages until the empty one, each validated by `page`; returns every entry. */
async function readPages(page: (last: LogEntry | undefined) => Promise<LogEntry[]>): Promise<LogEntry[]> {
  const all: LogEntry[] = [];
  for (;;) {
    const rows = await page(all.at(-1));
    if (rows.length === 0) return all;
    for (const row of rows) all.push(row);
  }
}

let cachedPages: Uint8Array[] | undefined;
/** The recorded pages' bytes, in order (the fixture server lists their queries). */
async function responsePages(): Promise<Uint8Array[]> {
  if (cachedPages) return cachedPages;
  const queries = (await (await fetch(`${location.origin}/fixture/pages`)).json()) as string[];
  const pages: Uint8Array[] = [];
  for (const query of queries) pages.push(new Uint8Array(await (await fetch(`${listUrl}?${query}`, { headers })).arrayBuffer()));
  cachedPages = pages;
  return pages;
}

/** Each variant resolves to the number of entries it produced, and what to release outside the timing. */
interface Outcome {
  entries: number;
  release?: () => void;
}

const variants: Record<string, () => Promise<Outcome>> = {
  // Our page's whole path: every page requested, parsed, validated and ordered, first screen read by React.
  ours: async () => {
    const list = await ours.listEntries();
    return { entries: readFirstScreen(list), release: () => list.free() };
  },
  // The peer's parsing on the same requests, without supabase-js's wrapper: text, JSON.parse, zod per page.
  'peer-fetch-json-zod': async () => {
    const all = await readPages(async (last) => {
      const response = await fetch(`${listUrl}?${pageQuery(last)}`, { headers });
      return LogEntriesSchema.parse(JSON.parse(await response.text()));
    });
    return { entries: all.length };
  },
  // The same pages through supabase-js (which reads the text and JSON.parses it), then zod.
  'peer-supabase-zod': async () => {
    const all = await readPages(async (last) => {
      let query = supabase
        .from('geocache_logs')
        .select('*')
        .order('created_at', { ascending: false })
        .order('id', { ascending: false })
        .limit(PAGE_SIZE);
      if (last) query = query.or(after(last));
      const { data, error } = await query;
      if (error) throw new Error(error.message);
      return LogEntriesSchema.parse(data);
    });
    return { entries: all.length };
  },
  // The transport alone, for reference: the same requests, bytes only.
  'fetch-only': async () => {
    const queries = (await (await fetch(`${location.origin}/fixture/pages`)).json()) as string[];
    let bytes = 0;
    for (const query of queries) bytes += (await (await fetch(`${listUrl}?${query}`, { headers })).arrayBuffer()).byteLength;
    return { entries: bytes };
  },
  // Parsing and validation alone, from the pages' bytes already in memory: our core (decode, validate, order) ...
  'memory-ours-core': async () => {
    let entries = 0;
    for (const page of await responsePages()) entries += parseEntriesForBenchmark(page);
    return { entries };
  },
  // ... against UTF-8 decoding, JSON.parse and zod, and JSON.parse without validation.
  'memory-json-zod': async () => {
    let entries = 0;
    for (const page of await responsePages()) entries += LogEntriesSchema.parse(JSON.parse(new TextDecoder().decode(page))).length;
    return { entries };
  },
  'memory-json': async () => {
    let entries = 0;
    for (const page of await responsePages()) entries += (JSON.parse(new TextDecoder().decode(page)) as unknown[]).length;
    return { entries };
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
  cachedPages = undefined;
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
