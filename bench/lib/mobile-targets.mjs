// @ts-check
// The mobile profile's targets, judged from the summarised runs of both pages at each N. A figure that was not
// measured makes its target "not measured", never met; a timed-out run counts as the time limit (a lower bound).
import { ratio, summarize } from './stats.mjs';

export const FIRST_VISIT_MAX_RATIO = 0.8;
export const REPEAT_VISIT_MAX_RATIO = 0.3;
export const REPEAT_VISIT_MAX_MS = 500;
export const FIRST_VISIT_BYTES_MAX_RATIO = 0.85;

/**
 * @typedef {object} MobileRun
 * @property {number | null} firstMs          first visit: navigation start to the first entries painted (null: not in time)
 * @property {number | null} repeatMs         second navigation in the same context, caches warm
 * @property {boolean} offlineWorks           an offline navigation after the visits painted entries
 * @property {number | null} offlineMs
 * @property {string | null} [offlineError]   why the offline visit showed nothing (e.g. the navigation failed)
 * @property {{ gzip: number, brotli: number } | null} bytesBeforePaint  everything downloaded before the first entries
 * @property {string[]} problems
 */

/**
 * @typedef {object} MobilePoint
 * @property {number} n
 * @property {'ours' | 'peer'} page
 * @property {MobileRun[]} runs
 */

/**
 * Our page's runs behind one host (mobile-bench.mjs lists them), all against the same emulator at `n`.
 * @typedef {object} MobileHostPoint
 * @property {number} n
 * @property {string} host    the host's id
 * @property {string} label   how the report names it
 * @property {MobileRun[]} runs
 */

/**
 * @param {MobileRun[]} runs
 * @param {number} timeoutMs
 */
export function summarizeRuns(runs, timeoutMs) {
  const bytes = (/** @type {'gzip' | 'brotli'} */ key) => summarize(runs.filter((r) => r.bytesBeforePaint).map((r) => r.bytesBeforePaint?.[key] ?? 0));
  return {
    first: summarize(runs.map((r) => r.firstMs), timeoutMs),
    repeat: summarize(runs.map((r) => r.repeatMs), timeoutMs),
    offlineWorks: runs.filter((r) => r.offlineWorks).length,
    runs: runs.length,
    bytesGzip: bytes('gzip'),
    bytesBrotli: bytes('brotli'),
  };
}

/** @param {number | null | undefined} value */
const ms = (value) => (value === null || value === undefined ? 'n/a' : `${Math.round(value).toLocaleString('en')} ms`);
/** @param {number | null | undefined} value */
const kB = (value) => (value === null || value === undefined ? 'n/a' : `${(value / 1000).toFixed(1)} kB`);
/** @param {{ value: number | null, bound: string }} r */
const ratioText = (r) => (r.value === null ? 'n/a' : `${r.bound === 'at most' ? '< ' : r.bound === 'at least' ? '> ' : ''}${r.value.toFixed(2)}`);
/** @param {import('./stats.mjs').Summary} s */
const timeText = (s) => `${s.lowerBound ? '> ' : ''}${ms(s.median)}`;

/**
 * ours / peer within `limit`; a ratio known only as a bound passes only when the bound itself does.
 * @param {{ value: number | null, bound: string }} r
 * @param {number} limit
 * @returns {boolean | null}
 */
export function ratioWithin(r, limit) {
  if (r.value === null) return null;
  if (r.bound === 'at least') return r.value > limit ? false : null;
  return r.value <= limit;
}

/**
 * A repeat visit's median against the peer's: within REPEAT_VISIT_MAX_RATIO of it and under REPEAT_VISIT_MAX_MS.
 * @param {import('./stats.mjs').Summary} ours
 * @param {import('./stats.mjs').Summary} peer
 */
export function judgeRepeat(ours, peer) {
  const r = ratio(ours, peer);
  const underAbsolute = ours.median === null ? null : ours.lowerBound ? false : ours.median < REPEAT_VISIT_MAX_MS;
  const withinRatio = ratioWithin(r, REPEAT_VISIT_MAX_RATIO);
  const met = withinRatio === false || underAbsolute === false ? false : withinRatio === null || underAbsolute === null ? null : true;
  return { ratio: r, met };
}

/**
 * @param {MobilePoint[]} points
 * @param {number} timeoutMs
 * @param {MobileHostPoint[]} [hostPoints]  our page behind each host measured, the bench's own included
 * @returns {import('./targets.mjs').TargetResult[]}
 */
export function evaluateMobileTargets(points, timeoutMs, hostPoints = []) {
  const sizes = [...new Set(points.map((p) => p.n))].sort((a, b) => a - b);
  /** @type {import('./targets.mjs').TargetResult[]} */
  const targets = [];
  for (const n of sizes) {
    const at = `Mobile, N = ${n.toLocaleString('en')}`;
    const oursPoint = points.find((p) => p.n === n && p.page === 'ours');
    const peerPoint = points.find((p) => p.n === n && p.page === 'peer');
    if (!oursPoint || !peerPoint || oursPoint.runs.length === 0 || peerPoint.runs.length === 0) {
      for (const id of ['first-visit', 'repeat-visit', 'offline', 'bytes', 'repeat-visit-any-host']) {
        targets.push({ id: `mobile-${id}-${n}`, target: `${at}: ${id}`, measured: 'not measured', met: null });
      }
      continue;
    }
    const ours = summarizeRuns(oursPoint.runs, timeoutMs);
    const peer = summarizeRuns(peerPoint.runs, timeoutMs);

    const first = ratio(ours.first, peer.first);
    targets.push({
      id: `mobile-first-visit-${n}`,
      target: `${at}: first visit (cold cache), first entries painted in at most ${FIRST_VISIT_MAX_RATIO} of the peer's time`,
      measured: `${timeText(ours.first)} vs ${timeText(peer.first)}: ratio ${ratioText(first)}`,
      met: ratioWithin(first, FIRST_VISIT_MAX_RATIO),
    });

    const repeat = judgeRepeat(ours.repeat, peer.repeat);
    targets.push({
      id: `mobile-repeat-visit-${n}`,
      target: `${at}: repeat visit (warm caches), first entries painted in at most ${REPEAT_VISIT_MAX_RATIO} of the peer's time and under ${REPEAT_VISIT_MAX_MS} ms`,
      measured: `${timeText(ours.repeat)} vs ${timeText(peer.repeat)}: ratio ${ratioText(repeat.ratio)}`,
      met: repeat.met,
    });

    const works = (/** @type {{ offlineWorks: number, runs: number }} */ s) =>
      s.offlineWorks === s.runs ? 'works' : s.offlineWorks === 0 ? 'does not work' : `works in ${s.offlineWorks} of ${s.runs} runs`;
    targets.push({
      id: `mobile-offline-${n}`,
      target: `${at}: a repeat visit offline shows the entries (the peer cannot)`,
      measured: `ours ${works(ours)}; the peer ${works(peer)}`,
      met: ours.offlineWorks === ours.runs,
    });

    const gzip = ratio(ours.bytesGzip, peer.bytesGzip);
    const brotli = ratio(ours.bytesBrotli, peer.bytesBrotli);
    const gzipMet = ratioWithin(gzip, FIRST_VISIT_BYTES_MAX_RATIO);
    const brotliMet = ratioWithin(brotli, FIRST_VISIT_BYTES_MAX_RATIO);
    targets.push({
      id: `mobile-bytes-${n}`,
      target: `${at}: a first visit downloads at most ${FIRST_VISIT_BYTES_MAX_RATIO} of the peer's bytes before its first entries are painted (gzip and brotli)`,
      measured:
        `gzip ${kB(ours.bytesGzip.median)} vs ${kB(peer.bytesGzip.median)} (ratio ${ratioText(gzip)}); ` +
        `brotli ${kB(ours.bytesBrotli.median)} vs ${kB(peer.bytesBrotli.median)} (ratio ${ratioText(brotli)})`,
      met: gzipMet === false || brotliMet === false ? false : gzipMet === null || brotliMet === null ? null : true,
    });

    // Whatever caching headers the host sends, the repeat visit meets the same target; the peer is the one behind the
    // bench's own host, its fastest.
    const behindHosts = hostPoints.filter((p) => p.n === n);
    const judged = behindHosts.map((p) => {
      const summary = summarize(p.runs.map((r) => r.repeatMs), timeoutMs);
      return { label: p.label, summary, ...judgeRepeat(summary, peer.repeat) };
    });
    targets.push({
      id: `mobile-repeat-visit-any-host-${n}`,
      target:
        `${at}: repeat visit behind every host measured (whatever its caching headers), first entries painted in at most ` +
        `${REPEAT_VISIT_MAX_RATIO} of the peer's time and under ${REPEAT_VISIT_MAX_MS} ms`,
      measured:
        judged.length === 0
          ? 'not measured'
          : `${judged.map((j) => `${j.label} ${timeText(j.summary)} (ratio ${ratioText(j.ratio)})`).join('; ')}; the peer ${timeText(peer.repeat)}`,
      met:
        judged.length === 0 || judged.some((j) => j.summary.runs === 0)
          ? null
          : judged.some((j) => j.met === false)
            ? false
            : judged.some((j) => j.met === null)
              ? null
              : true,
    });
  }
  return targets;
}
