// @ts-check
// The field visit's targets, as ratios to the peer measured in the same run; and the floor: the least a visit could
// fetch before its form takes input, and before its sign is sent, on this profile.
import { ratioWithin } from './mobile-targets.mjs';
import { ratio, summarize } from './stats.mjs';

export const TYPEABLE_MAX_RATIO = 0.4;
export const SIGNED_MAX_RATIO = 0.8;
export const PRESS_TO_SHOWN_MAX_RATIO = 1.0;

/**
 * @param {import('./field-visit.mjs').FieldRun[]} runs
 * @param {number} timeoutMs
 */
export function summarizeFieldRuns(runs, timeoutMs) {
  const measured = runs.filter((r) => r.beforeTypeable !== null);
  return {
    runs: runs.length,
    typeable: summarize(runs.map((r) => r.typeableMs), timeoutMs),
    firstCard: summarize(runs.map((r) => r.firstCardMs), timeoutMs),
    signed: summarize(runs.map((r) => r.signedMs), timeoutMs),
    pressToShown: summarize(runs.map((r) => r.pressToShownMs), timeoutMs),
    bytesBeforeTypeable: summarize(measured.map((r) => r.beforeTypeable?.bytes ?? 0)),
    requestsBeforeTypeable: summarize(measured.map((r) => r.beforeTypeable?.requests ?? 0)),
  };
}

/** @param {number | null | undefined} value */
const ms = (value) => (value === null || value === undefined ? 'n/a' : `${Math.round(value).toLocaleString('en')} ms`);
/** @param {{ value: number | null, bound: string }} r */
const ratioText = (r) => (r.value === null ? 'n/a' : `${r.bound === 'at most' ? '< ' : r.bound === 'at least' ? '> ' : ''}${r.value.toFixed(2)}`);

/**
 * @param {ReturnType<typeof summarizeFieldRuns>} ours
 * @param {ReturnType<typeof summarizeFieldRuns>} peer
 * @returns {import('./targets.mjs').TargetResult[]}
 */
export function evaluateFieldTargets(ours, peer) {
  /** @type {[string, string, 'typeable' | 'signed' | 'pressToShown', number][]} */
  const rows = [
    ['field-typeable', 'both fields take input', 'typeable', TYPEABLE_MAX_RATIO],
    ['field-signed', 'own entry shown, typing for 10 s from typeable', 'signed', SIGNED_MAX_RATIO],
    ['field-press-to-shown', 'press of Sign Logbook to own entry shown', 'pressToShown', PRESS_TO_SHOWN_MAX_RATIO],
  ];
  return rows.map(([id, what, key, limit]) => {
    const r = ratio(ours[key], peer[key]);
    return {
      id,
      target: `Field visit: ${what} in at most ${limit} of the peer's time`,
      measured: `${ms(ours[key].median)} vs ${ms(peer[key].median)}: ratio ${ratioText(r)}`,
      met: ratioWithin(r, limit),
    };
  });
}

/**
 * The floor on this profile, from the served page itself: before the form can take input, the browser needs the
 * document and the stylesheets it links in its head (render-blocking), over a new connection: one round trip to
 * connect, one for the document, one for the stylesheets (asked for together). A sign sent at the earliest adds a
 * connection to the API, the CORS preflight and the insert.
 * @param {string} html  the served index.html
 * @param {{ path: string, brotli: number }[]} files  the build's files with their compressed sizes
 */
export function fieldFloor(html, files) {
  const head = html.slice(0, html.indexOf('</head>'));
  const stylesheets = [...head.matchAll(/<link\b[^>]*\brel="stylesheet"[^>]*>/g)]
    .map((match) => /\bhref="([^"]+)"/.exec(match[0])?.[1])
    .filter((href) => href !== undefined);
  const sizeOf = (/** @type {string} */ urlPath) => files.find((file) => file.path === urlPath)?.brotli ?? 0;
  const typeableBytes = sizeOf('/index.html') + stylesheets.reduce((sum, href) => sum + sizeOf(href), 0);
  return {
    typeable: { roundTrips: stylesheets.length > 0 ? 3 : 2, bytes: typeableBytes, files: ['/index.html', ...stylesheets] },
    signSent: { roundTrips: 3, note: 'after typeable: a connection to the API, the CORS preflight, the insert' },
    // The preflight is cached and the connection open by the time a visitor has typed a sign.
    signShown: { roundTrips: 1, note: "the insert's, when its answer holds the stored row" },
    signReady: signReady(head, stylesheets, sizeOf),
  };
}

/**
 * What a page reaches: the files its served head asks for at once, while the document is parsed (stylesheets, module
 * scripts, module preloads, and the files our inline script preloads from the list the build writes on it). The
 * client that sends a sign is among them, so a sign can go once they have all arrived: they share the round trip of
 * the stylesheets, and then the link's bandwidth.
 * @param {string} head  the served index.html up to `</head>`
 * @param {string[]} stylesheets
 * @param {(urlPath: string) => number} sizeOf
 */
function signReady(head, stylesheets, sizeOf) {
  const attribute = (/** @type {string} */ tag, /** @type {string} */ name) => new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1];
  const tags = (/** @type {RegExp} */ pattern) => [...head.matchAll(pattern)].map((match) => match[0]);
  const scripts = tags(/<script\b[^>]*\btype="module"[^>]*>/g).map((tag) => attribute(tag, 'src'));
  const preloads = tags(/<link\b[^>]*\brel="modulepreload"[^>]*>/g).map((tag) => attribute(tag, 'href'));
  const preloadedByScript = tags(/<script\b[^>]*\bdata-first-visit-[^>]*>/g).flatMap((tag) => [
    ...(attribute(tag, 'data-first-visit-scripts') ?? '').split(/\s+/),
    ...(attribute(tag, 'data-first-visit-wasm') ?? '').split(/\s+/),
  ]);
  const paths = [...new Set(['/index.html', ...stylesheets, ...scripts, ...preloads, ...preloadedByScript])].filter(
    (urlPath) => urlPath !== undefined && urlPath !== '',
  );
  return { roundTrips: stylesheets.length > 0 ? 3 : 2, bytes: paths.reduce((sum, urlPath) => sum + sizeOf(/** @type {string} */ (urlPath)), 0), files: paths.length };
}
