// @ts-check
// mobile.md: the mobile profile's targets, the visits' times, and what a first visit downloads when.
import { formatRatio, formatSummary } from './report.mjs';
import { ratio, summarize } from './stats.mjs';

/** @param {string} text */
const cell = (text) => String(text).replaceAll('|', '\\|');

/**
 * @param {string[]} header
 * @param {string[][]} rows
 */
function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)].join('\n');
}

/** @param {{ count: number, gzip: number, brotli: number }} sizes */
const sizes = (sizes) => (sizes.count === 0 ? '–' : `${(sizes.gzip / 1000).toFixed(1)} / ${(sizes.brotli / 1000).toFixed(1)} (${sizes.count})`);

/** @param {boolean | null} met */
const metText = (met) => (met === null ? 'not measured' : met ? '**met**' : 'not met');

/**
 * The one-paragraph header of mobile.md and wasm-functions.md: when, which commit, which machine, how busy.
 * @param {any} results
 */
export function runHeader(results) {
  const { machine } = results;
  return (
    `${results.mode === 'quick' ? '**Quick run** (one run per page and N): figures for development only. ' : ''}` +
    `Run ${results.startedAt} (${Math.round(results.durationSeconds)} s), commit ${results.git.commit.slice(0, 10)}${results.git.dirty ? ' with uncommitted changes' : ''}. ` +
    `${machine.cpuCount} × ${machine.cpuModel}, ${machine.os}; Node ${machine.node}, Chromium ${machine.chromium} (headless). ` +
    `Load average ${machine.loadAverage.start.map((/** @type {number} */ l) => l.toFixed(1)).join(' / ')} at the start and ` +
    `${machine.loadAverage.end.map((/** @type {number} */ l) => l.toFixed(1)).join(' / ')} at the end: other work on the machine makes the figures noisy.`
  );
}

/**
 * @param {any} results  the object written to mobile.json
 */
export function renderMobileMarkdown(results) {
  const { profile } = results;
  const out = [];
  out.push('# Mobile profile: our logbook page against supabase-js + zod');
  out.push('');
  out.push(runHeader(results));
  out.push('');
  out.push(
    `Profile (Chrome DevTools Protocol, on the page and on every worker it starts, its service worker included): ` +
      `${profile.latencyMs} ms round trip, ${profile.downloadKbitPerSecond / 1000} Mbit/s down, ${profile.uploadKbitPerSecond} kbit/s up ` +
      `(\`Network.emulateNetworkConditions\`), CPU ${profile.cpuSlowdown}× slower (\`Emulation.setCPUThrottlingRate\`); ` +
      `viewport ${results.viewport.width}×${results.viewport.height}, touch. Both pages are production builds served as a static host serves ` +
      'them: brotli (or gzip) for HTML, JS, CSS and wasm, hashed assets cached for a year, the rest revalidated; ours ' +
      'also behind hosts whose caching headers differ (below). ' +
      'The pages reach the emulator through a proxy that compresses its answers (brotli 5, else gzip 6), as a hosted ' +
      'project\'s CDN does. Each run is a fresh browser profile: a first visit (cold caches), ' +
      'then, once it has settled (service worker active, network quiet), a second navigation (warm caches), then one more ' +
      'with the network offline. Times run from navigation start to the first frame painted with an entry card.',
  );
  out.push('');
  out.push('## Targets');
  out.push('');
  out.push(table(['Target', 'Measured', 'Met'], results.targets.map((/** @type {any} */ t) => [t.target, t.measured, metText(t.met)])));
  out.push('');
  out.push('## Visits');
  out.push('');
  out.push(`Median (min–max) of ${results.options.runs} run(s) per page and N; "> x" means a run hit the ${results.options.timeoutMs / 1000} s limit.`);
  out.push('');
  out.push(
    table(
      ['N', 'Page', 'First visit', 'Repeat visit', 'Offline repeat', 'Before first paint (gzip / brotli)'],
      results.summaries.map((/** @type {any} */ s) => [
        s.n.toLocaleString('en'),
        s.page,
        formatSummary(s.first, 'ms'),
        formatSummary(s.repeat, 'ms'),
        s.offlineWorks === s.runs ? 'works' : s.offlineWorks === 0 ? 'does not work' : `works in ${s.offlineWorks} of ${s.runs}`,
        `${formatSummary(s.bytesGzip, 'bytes')} / ${formatSummary(s.bytesBrotli, 'bytes')}`,
      ]),
    ),
  );
  out.push('');
  if (results.hostSummaries?.length > 0) {
    out.push('## Behind other hosts');
    out.push('');
    out.push(
      'Our page behind hosts whose caching headers differ, the same visits at every N (the bench\'s own host is the ' +
        'one above); the ratio is to the peer\'s repeat visit behind the bench\'s host. From each host\'s first run: what answered the repeat visit\'s navigation and when its last byte ' +
        'had arrived; when the kept cards were put in the list; how many of the page\'s own files the service worker ' +
        'answered and how many the browser took from its caches without asking it; and the requests the repeat visit ' +
        'still sent over the network (revalidations included; "worker" marks the service worker\'s own), with their status.',
    );
    out.push('');
    out.push(
      table(
        ['N', 'Host', 'Caching headers', 'First visit', 'Repeat visit', 'Repeat: ratio to the peer\'s', 'Repeat: document from', 'Repeat: kept cards in the list', 'Repeat: files from the worker / the browser', 'Repeat: over the network'],
        results.hostSummaries.map((/** @type {any} */ s) => {
          const peer = results.summaries.find((/** @type {any} */ p) => p.n === s.n && p.page === 'peer');
          const host = results.hosts.find((/** @type {any} */ h) => h.id === s.host);
          const detail = results.hostDetails.find((/** @type {any} */ d) => d.n === s.n && d.host === s.host && d.run === 1);
          const answers = detail?.repeatAnswers;
          const network = answers?.network ?? [];
          return [
            s.n.toLocaleString('en'),
            s.label,
            host?.headers ?? '',
            formatSummary(s.first, 'ms'),
            formatSummary(s.repeat, 'ms'),
            peer ? formatRatio(ratio(s.repeat, peer.repeat ?? summarize([]))) : 'n/a',
            answers ? `${answers.document}${answers.documentMs === null ? '' : ` (${Math.round(answers.documentMs).toLocaleString('en')} ms)`}` : 'n/a',
            answers?.keptCardsMs == null ? 'n/a' : `${Math.round(answers.keptCardsMs).toLocaleString('en')} ms`,
            answers?.files ? `${answers.files.worker} / ${answers.files.browser}` : 'n/a',
            answers
              ? network.length === 0
                ? 'nothing'
                : `${network.length}: ${network.map((/** @type {any} */ r) => `${r.byServiceWorker ? 'worker ' : ''}\`${r.path}\` ${r.status}`).join(', ')}`
              : 'n/a',
          ];
        }),
      ),
    );
    out.push('');
  }
  out.push('## What a first visit downloads, and when');
  out.push('');
  out.push(
    'From each page\'s first run at each N, in kB as gzip -9 / brotli 11 of each body (whatever encoding it travelled ' +
      'in), with the number of responses. "Before first paint": every response whose body had arrived when the first ' +
      'entries were painted (the byte target compares these). "Later in the visit": the page\'s own fetches after that ' +
      '(further pages of entries, a service worker script). "Precache": what the service worker keeps for offline use ' +
      '(Cache Storage after the visit), and of it what the visit had not already fetched before paint; the service ' +
      'worker\'s script and the build files it fetched itself are listed apart. "Only when used": ' +
      'build files the visit neither fetched nor precached (source maps left out). "On the wire": the bodies as they ' +
      'travelled. "Repeat visit over the network": the requests the warm visit ' +
      'still sent (revalidations included; not those the HTTP cache or a service worker answered).',
  );
  out.push('');
  const firstRuns = results.details.filter((/** @type {any} */ d) => d.run === 1);
  out.push(
    table(
      ['N', 'Page', 'Before first paint: assets', 'Before first paint: API', 'Before first paint: all', 'Later in the visit', 'Precache (not fetched before paint)', 'Service worker script and its own fetches', 'Only when used', 'Repeat visit over the network', 'Service worker'],
      firstRuns.map((/** @type {any} */ d) => [
        d.n.toLocaleString('en'),
        d.page,
        sizes(d.bytes.beforeFirstPaint.assets),
        sizes(d.bytes.beforeFirstPaint.api),
        `${sizes(d.bytes.beforeFirstPaint.all)}; ${(d.bytes.beforeFirstPaint.wireBytes / 1000).toFixed(1)} on the wire`,
        sizes(d.bytes.afterFirstPaint.all),
        `${sizes(d.bytes.precache.all)} (${sizes(d.bytes.precache.extra)})`,
        d.serviceWorker ? `${sizes(d.bytes.serviceWorker.all)}; ${(d.serviceWorkerWireBytes / 1000).toFixed(1)} kB on the wire` : '–',
        sizes(d.bytes.onlyWhenUsed.all),
        `${d.networkLater.repeat.requests} requests, ${(d.networkLater.repeat.wireBytes / 1000).toFixed(1)} kB on the wire`,
        d.serviceWorker ? `yes (${d.workersThrottled} worker(s) throttled)` : 'none',
      ]),
    ),
  );
  out.push('');
  for (const d of firstRuns) {
    const before = d.bytes.beforeFirstPaint.items.map(
      (/** @type {any} */ r) => `\`${new URL(r.url).pathname}\` ${(r.brotli / 1000).toFixed(1)}`,
    );
    out.push(`N = ${d.n.toLocaleString('en')}, ${d.page}, before first paint (brotli kB): ${before.join(', ') || 'nothing'}.`);
    if (d.bytes.onlyWhenUsed.items.length > 0) {
      out.push('');
      out.push(`Only when used: ${d.bytes.onlyWhenUsed.items.map((/** @type {any} */ f) => `\`${f.path}\` ${(f.brotli / 1000).toFixed(1)}`).join(', ')}.`);
    }
    out.push('');
  }
  if (results.wasm) {
    out.push(
      `The page's wasm (\`${results.wasm.shippedPath}\`, ${(results.wasm.shippedBytes / 1000).toFixed(1)} kB raw) by function: see wasm-functions.md.`,
    );
    out.push('');
  }
  const problems = results.points.flatMap((/** @type {any} */ p) =>
    p.runs.flatMap((/** @type {any} */ r, /** @type {number} */ i) => r.problems.map((/** @type {string} */ m) => `N = ${p.n} ${p.page} run ${i + 1}: ${m}`)),
  );
  if (problems.length > 0) {
    out.push('## Problems seen during the runs');
    out.push('');
    for (const problem of problems.slice(0, 40)) out.push(`- ${problem}`);
    out.push('');
  }
  return out.join('\n');
}
