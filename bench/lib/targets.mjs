// @ts-check
// The page's performance targets, and those of reading every entry under the server's 1,000-row cap, checked against one
// run's figures. A target whose figures were not measured (e.g. N = 100,000 in --quick mode) is reported as not
// measured, never as met. A comparison with a peer that hides entries (one capped read) says so.
import { requestBound } from './rest-requests.mjs';
import { entriesShown } from './summary.mjs';

/** Smooth scrolling: 95% of frames within two 60 Hz frames, and a virtualised list (a bounded number of cards). */
export const SMOOTH_P95_FRAME_MS = 34;
export const VIRTUALISED_MAX_CARDS = 1000;
/** Under the row cap, at N = 100,000: first entries, and every entry reachable, within these. */
export const FIRST_PAINT_100K_MS = 1500;
export const ALL_REACHABLE_100K_MS = 5000;

/**
 * @typedef {object} TargetResult
 * @property {string} id
 * @property {string} target     the issue's wording, short
 * @property {string} measured   what was measured, in words and numbers
 * @property {boolean | null} met null = not measured
 */

/**
 * @param {number | null | undefined} value
 * @param {number} [digits]
 */
const fixed = (value, digits = 2) => (value === null || value === undefined ? 'n/a' : value.toFixed(digits));

/** @param {number | null | undefined} value */
const ms = (value) => (value === null || value === undefined ? 'n/a' : `${Math.round(value).toLocaleString('en')} ms`);

/** @param {number} value */
const count = (value) => value.toLocaleString('en');

/**
 * @param {{ value: number | null, bound: string }} r
 */
const ratioText = (r) => (r.value === null ? 'n/a' : `${r.bound === 'at most' ? '< ' : r.bound === 'at least' ? '> ' : ''}${fixed(r.value)}`);

/**
 * Whether ours / peer is within `limit`: an upper-bounded ratio ("at most") passes when its bound does.
 * @param {{ value: number | null, bound: string }} r
 * @param {number} limit
 */
function ratioWithin(r, limit) {
  if (r.value === null) return null;
  if (r.bound === 'at least') return r.value > limit ? false : null;
  return r.value <= limit;
}

/**
 * @param {any} results  the object written to latest.json
 * @returns {TargetResult[]}
 */
export function evaluateTargets(results) {
  /** @type {TargetResult[]} */
  const targets = [];
  /** @param {number} n @param {string} metric */
  const row = (n, metric) => results.comparisons.find((/** @type {any} */ c) => c.n === n && c.metric === metric);
  /** "; the peer shows only 1,000 of 100,000 entries" when it hides some at `n`. @param {number} n */
  const peerCaveat = (n) => {
    const peer = entriesShown(results.comparisons, n, 'peer');
    return peer?.hides ? `; the peer shows only ${count(peer.shown)} of ${count(n)} entries` : '';
  };

  // Download.
  const ours = results.assets?.ours?.logbook?.totals?.code;
  const peer = results.assets?.peer?.logbook?.totals?.code;
  if (ours && peer) {
    const value = ours.gzip / peer.gzip;
    targets.push({
      id: 'download',
      target: 'Logbook download (JS + wasm + CSS, gzip -9) at most 0.6 of the peer\'s',
      measured: `${(ours.gzip / 1000).toFixed(1)} kB vs ${(peer.gzip / 1000).toFixed(1)} kB: ratio ${fixed(value)}`,
      met: value <= 0.6,
    });
  } else {
    targets.push({ id: 'download', target: 'Logbook download at most 0.6 of the peer\'s', measured: 'not measured', met: null });
  }

  // Teaser.
  const teaser = results.assets?.ours?.teaser;
  if (teaser) {
    const wasm = teaser.assets.filter((/** @type {any} */ a) => a.kind === 'wasm').map((/** @type {any} */ a) => a.path);
    const client = teaser.assets.filter((/** @type {any} */ a) => a.clientCode).map((/** @type {any} */ a) => a.path);
    const inHtml = results.teaser?.inServedHtml === true;
    targets.push({
      id: 'teaser',
      target: 'Teaser downloads no wasm and no client code; its text is in the served HTML (painted before any script)',
      measured: [
        wasm.length === 0 ? 'no wasm' : `wasm: ${wasm.join(', ')}`,
        client.length === 0 ? 'no client code' : `client code in ${client.join(', ')}`,
        inHtml ? 'text in the served HTML' : 'text NOT in the served HTML (rendered by script)',
      ].join('; '),
      met: wasm.length === 0 && client.length === 0 && inHtml,
    });
  }

  const first1k = row(1000, 'firstCardMs');
  targets.push({
    id: 'first-paint-1k',
    target: 'N = 1,000: first entries painted no later than the peer',
    measured: first1k ? `${ms(first1k.ours.median)} vs ${ms(first1k.peer.median)}: ratio ${ratioText(first1k.ratio)}` : 'not measured',
    met: first1k ? ratioWithin(first1k.ratio, 1) : null,
  });

  const first100k = row(100_000, 'firstCardMs');
  targets.push({
    id: 'first-paint-100k-absolute',
    target: `N = 100,000 under the 1,000-row cap: first entries painted within ${FIRST_PAINT_100K_MS / 1000} s of navigation`,
    measured: first100k ? `${ms(first100k.ours.median)} (max ${ms(first100k.ours.max)})` : 'not measured',
    met:
      first100k && first100k.ours.median !== null
        ? !first100k.ours.lowerBound && first100k.ours.median <= FIRST_PAINT_100K_MS
        : null,
  });
  targets.push({
    id: 'first-paint-100k-ratio',
    target: 'N = 100,000: at least 10 times sooner than the peer shows its list',
    measured: first100k
      ? `${ms(first100k.ours.median)} vs ${first100k.peer.lowerBound ? '> ' : ''}${ms(first100k.peer.median)}: ratio ${ratioText(first100k.ratio)}${peerCaveat(100_000)}`
      : 'not measured',
    met: first100k ? ratioWithin(first100k.ratio, 0.1) : null,
  });

  // Every entry reachable under the cap, and what that costs in requests.
  const usable100k = row(100_000, 'usableMs');
  const shown100k = entriesShown(results.comparisons, 100_000, 'ours');
  targets.push({
    id: 'reachable-100k',
    target: `N = 100,000 under the 1,000-row cap: every entry reachable (scrolled to the oldest entry and painted) within ${ALL_REACHABLE_100K_MS / 1000} s`,
    measured:
      usable100k && shown100k
        ? `${shown100k.hides ? 'never' : `${usable100k.ours.lowerBound ? '> ' : ''}${ms(usable100k.ours.median)} (max ${ms(usable100k.ours.max)})`}; ` +
          `${shown100k.hides ? `only ${count(shown100k.shown)}` : count(shown100k.shown)} of ${count(shown100k.of)} entries reachable${shown100k.hides ? ' in a run' : ' in every run'}`
        : 'not measured',
    met: shown100k?.hides
      ? false
      : usable100k && shown100k && usable100k.ours.median !== null
        ? !usable100k.ours.lowerBound && usable100k.ours.median <= ALL_REACHABLE_100K_MS
        : null,
  });
  const requests100k = row(100_000, 'restRequests');
  const bound = requestBound(100_000);
  targets.push({
    id: 'requests-100k',
    target: `N = 100,000: a load makes no more REST requests than pages plus one, and the changes cursor (ceil(N / 1,000) + 2 = ${bound})`,
    measured:
      requests100k && requests100k.ours.max !== null
        ? `${count(requests100k.ours.max)} at most (median ${count(requests100k.ours.median ?? 0)})${shown100k?.hides ? ', but not every entry was read' : ''}; the peer: ${count(requests100k.peer.max ?? 0)}`
        : 'not measured',
    met: requests100k && requests100k.ours.max !== null && shown100k ? !shown100k.hides && requests100k.ours.max <= bound : null,
  });
  const sizes = [...new Set(results.comparisons.map((/** @type {any} */ c) => c.n))].sort((a, b) => a - b);
  const shownAt = (/** @type {'ours' | 'peer'} */ page) =>
    sizes.map((n) => ({ n, shown: entriesShown(results.comparisons, n, page) })).filter((s) => s.shown !== null);
  const shownText = (/** @type {'ours' | 'peer'} */ page) =>
    shownAt(page)
      .map(({ n, shown }) => (shown?.hides ? `${count(shown.shown)} of ${count(n)}` : `all ${count(n)}`))
      .join(', ');
  targets.push({
    id: 'entries-shown',
    target: 'Every entry in the table reachable on the page, at every N measured',
    measured: shownAt('ours').length > 0 ? `ours: ${shownText('ours')}; the peer (one supabase-js read): ${shownText('peer')}` : 'not measured',
    met: shownAt('ours').length > 0 ? shownAt('ours').every(({ shown }) => !shown?.hides) : null,
  });

  const scroll = row(100_000, 'scrollP95Ms');
  const steady = row(100_000, 'steadyScrollP95Ms');
  const cards = row(100_000, 'cardsInDom');
  const usable = row(100_000, 'usableMs');
  targets.push({
    id: 'scroll-100k',
    target: `N = 100,000: scrolling to the end stays smooth (virtualised: <= ${VIRTUALISED_MAX_CARDS} cards in the DOM; frame p95 <= ${SMOOTH_P95_FRAME_MS} ms jumping to the end and scrolling steadily)`,
    measured:
      scroll && cards
        ? `frame p95 ${fixed(scroll.ours.median, 1)} ms jumping to the end (peer ${fixed(scroll.peer.median, 1)} ms), ` +
          `${fixed(steady?.ours.median, 1)} ms scrolling 120 px a frame (peer ${fixed(steady?.peer.median, 1)} ms); ` +
          `${fixed(cards.ours.median, 0)} cards in the DOM; end reached after ${ms(usable?.ours.median)}`
        : 'not measured',
    met:
      scroll && steady && cards && scroll.ours.median !== null && steady.ours.median !== null && cards.ours.median !== null
        ? scroll.ours.median <= SMOOTH_P95_FRAME_MS &&
          steady.ours.median <= SMOOTH_P95_FRAME_MS &&
          cards.ours.median <= VIRTUALISED_MAX_CARDS
        : null,
  });

  const heap = row(100_000, 'heapBytes');
  targets.push({
    id: 'heap-100k',
    target: 'N = 100,000: JS heap (here: JS heap + wasm memory) at most half the peer\'s',
    measured: heap
      ? `${fixed((heap.ours.median ?? NaN) / 1e6, 1)} MB vs ${fixed((heap.peer.median ?? NaN) / 1e6, 1)} MB: ratio ${ratioText(heap.ratio)}${peerCaveat(100_000)}`
      : 'not measured',
    met: heap ? ratioWithin(heap.ratio, 0.5) : null,
  });

  const sign = row(10_000, 'signMs');
  targets.push({
    id: 'sign-10k',
    target: 'One sign at N = 10,000: at most half the peer\'s time',
    measured: sign ? `${ms(sign.ours.median)} vs ${ms(sign.peer.median)}: ratio ${ratioText(sign.ratio)}${peerCaveat(10_000)}` : 'not measured',
    met: sign ? ratioWithin(sign.ratio, 0.5) : null,
  });

  // Parse: ours (to the first screen React reads) against fetch + JSON.parse + zod, at every size measured.
  const parseSizes = [...new Set((results.parsing ?? []).map((/** @type {any} */ p) => p.entries))];
  const parseRows = parseSizes.map((n) => {
    const of = (/** @type {string} */ variant) => results.parsing.find((/** @type {any} */ p) => p.entries === n && p.variant === variant);
    return { n, ours: of('ours'), peer: of('peer-fetch-json-zod') };
  });
  targets.push({
    id: 'parse',
    target: 'Parse + validation at least as fast as JSON.parse + zod on the same bytes, counting the hand-over to React',
    measured:
      parseRows.length > 0
        ? parseRows
            .map((p) => `N = ${p.n.toLocaleString('en')}: ${fixed(p.ours?.median, 1)} ms vs ${fixed(p.peer?.median, 1)} ms (ratio ${fixed(p.ours?.median / p.peer?.median)})`)
            .join('; ')
        : 'not measured',
    met: parseRows.length > 0 ? parseRows.every((p) => p.ours && p.peer && p.ours.median <= p.peer.median) : null,
  });

  const load = results.load;
  targets.push({
    id: 'emulator-reads',
    target: 'Emulator: at least 2,000 reads a second of 100-entry pages',
    measured: load ? `${Math.round(load.reads.requestsPerSecond).toLocaleString('en')}/s, p50 ${load.reads.latencyMs.p50} ms, p99 ${load.reads.latencyMs.p99} ms${load.reads.valid ? '' : ' (with failed requests)'}` : 'not measured',
    met: load ? load.reads.valid && load.reads.requestsPerSecond >= 2000 : null,
  });
  targets.push({
    id: 'emulator-inserts',
    target: 'Emulator: at least 1,000 inserts a second',
    measured: load ? `${Math.round(load.inserts.requestsPerSecond).toLocaleString('en')}/s, p50 ${load.inserts.latencyMs.p50} ms, p99 ${load.inserts.latencyMs.p99} ms${load.inserts.valid ? '' : ' (with failed requests)'}` : 'not measured',
    met: load ? load.inserts.valid && load.inserts.requestsPerSecond >= 1000 : null,
  });
  return targets;
}
