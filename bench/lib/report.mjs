// @ts-check
// latest.md: the targets, what each page shows of the table, then every figure behind them, as Markdown tables.
import { requestBound } from './rest-requests.mjs';
import { entriesShown } from './summary.mjs';

/**
 * @param {number | null | undefined} value
 * @param {'ms' | 'bytes' | 'count'} unit
 */
export function formatValue(value, unit) {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'n/a';
  if (unit === 'bytes') return value >= 1e6 ? `${(value / 1e6).toFixed(1)} MB` : `${(value / 1e3).toFixed(1)} kB`;
  if (unit === 'count') return Math.round(value).toLocaleString('en');
  return value >= 100 ? `${Math.round(value).toLocaleString('en')} ms` : `${value.toFixed(1)} ms`;
}

/**
 * "median (min–max)", with "> " for a median that is a timed-out run.
 * @param {import('./stats.mjs').Summary} summary
 * @param {'ms' | 'bytes' | 'count'} unit
 */
export function formatSummary(summary, unit) {
  if (summary.median === null) return 'n/a';
  const median = `${summary.lowerBound ? '> ' : ''}${formatValue(summary.median, unit)}`;
  if (summary.runs <= 1) return median;
  const timeouts = summary.timeouts > 0 ? `, ${summary.timeouts} timed out` : '';
  return `${median} (${formatValue(summary.min, unit)}–${formatValue(summary.max, unit)}${timeouts})`;
}

/** @param {{ value: number | null, bound: string }} ratio */
export function formatRatio(ratio) {
  if (ratio.value === null) return 'n/a';
  const prefix = ratio.bound === 'at most' ? '< ' : ratio.bound === 'at least' ? '> ' : '';
  return `${prefix}${ratio.value < 0.01 ? ratio.value.toPrecision(2) : ratio.value.toFixed(2)}`;
}

/** @param {boolean | null} met */
const metText = (met) => (met === null ? 'not measured' : met ? '**met**' : 'not met');

/** @param {string} text */
const cell = (text) => String(text).replaceAll('|', '\\|');

/**
 * @param {string[]} header
 * @param {string[][]} rows
 */
function table(header, rows) {
  return [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}

/** @param {number} bytes */
const kB = (bytes) => `${(bytes / 1000).toFixed(1)}`;

/**
 * @param {any} results  the object written to latest.json
 * @returns {string}
 */
export function renderMarkdown(results) {
  const out = [];
  const { machine, options } = results;
  out.push(`# Benchmark: our logbook page against supabase-js + zod`);
  out.push('');
  out.push(
    `${results.mode === 'quick' ? `**Quick run** (\`--quick\`: N = ${options.sizes.map((/** @type {number} */ n) => n.toLocaleString('en')).join(', ')}, one run each, short load tests): figures for development only. ` : ''}` +
      `Run ${results.startedAt} (${Math.round(results.durationSeconds)} s), commit ${results.versions.git.commit.slice(0, 10)}${results.versions.git.dirty ? ' with uncommitted changes' : ''}. ` +
      `${machine.cpuCount} × ${machine.cpuModel}, ${Math.round(machine.memoryBytes / 2 ** 30)} GiB, ${machine.os}; Node ${machine.node}, Chromium ${machine.chromium} (headless). ` +
      `Load average ${machine.loadAverage.start.map((/** @type {number} */ l) => l.toFixed(1)).join(' / ')} at the start and ` +
      `${machine.loadAverage.end.map((/** @type {number} */ l) => l.toFixed(1)).join(' / ')} at the end: other work on the machine makes the figures noisy.`,
  );
  out.push('');
  out.push('## Targets');
  out.push('');
  out.push(table(['Target', 'Measured', 'Met'], results.targets.map((/** @type {any} */ t) => [t.target, t.measured, metText(t.met)])));
  out.push('');

  out.push('## Entries each page shows');
  out.push('');
  out.push(
    'The server caps every read at 1,000 rows (hosted Supabase\'s default `db-max-rows`; the emulator reads it from ' +
      '`supabase/config.toml`). Ours reads every entry in keyset pages of 1,000; the peer makes the ordinary ' +
      'supabase-js call, one read of all rows. "Reachable" is counted on the page: the list scrolled to its end, ' +
      'the last card\'s position + 1, checked against the table\'s entry at that position. REST requests are those ' +
      'the page made from navigation to the end of its load.',
  );
  out.push('');
  const sizes = [...new Set(results.comparisons.map((/** @type {any} */ c) => c.n))].sort((a, b) => a - b);
  const shownCell = (/** @type {number} */ n, /** @type {'ours' | 'peer'} */ page) => {
    const shown = entriesShown(results.comparisons, n, page);
    return shown === null ? 'n/a' : `${shown.shown.toLocaleString('en')}${shown.hides ? ' (hides entries)' : ''}`;
  };
  const requestsCell = (/** @type {number} */ n, /** @type {'ours' | 'peer'} */ page) => {
    const row = results.comparisons.find((/** @type {any} */ c) => c.n === n && c.metric === 'restRequests');
    return row ? formatSummary(row[page], 'count') : 'n/a';
  };
  const rowsInOneRead = (/** @type {number} */ n) =>
    (results.rowsInOneRead ?? []).find((/** @type {any} */ r) => r.n === n)?.rows.toLocaleString('en') ?? 'n/a';
  out.push(
    table(
      ['N (entries in the table)', 'Rows in one read of the whole list', 'Ours: reachable', 'Peer: reachable', 'Ours: REST requests (bound: pages + 1, and the changes cursor)', 'Peer: REST requests'],
      sizes.map((n) => [
        n.toLocaleString('en'),
        rowsInOneRead(n),
        shownCell(n, 'ours'),
        shownCell(n, 'peer'),
        `${requestsCell(n, 'ours')} (${requestBound(n)})`,
        requestsCell(n, 'peer'),
      ]),
    ),
  );
  out.push('');
  const hidden = sizes.filter((n) => entriesShown(results.comparisons, n, 'peer')?.hides);
  if (hidden.length > 0) {
    out.push(
      `**The peer hides entries at N = ${hidden.map((n) => n.toLocaleString('en')).join(', ')}.** Its one supabase-js read ` +
        'returns the newest 1,000 rows and nothing tells the page more exist, so its figures past N = 1,000 describe ' +
        'a page that shows 1,000 entries, not one that shows the logbook: its "fully usable" is never (the oldest ' +
        'entry is not on the page), and its first paint, memory and sign are those of a 1,000-entry list. The peer is ' +
        'kept as it is because it stands for the ordinary supabase-js page.',
    );
    out.push('');
  }

  out.push('## Page figures per N');
  out.push('');
  const runsPerPoint = results.pages
    .filter((/** @type {any} */ p) => p.page === 'ours')
    .map((/** @type {any} */ p) => `${p.runs.length} at N = ${p.n.toLocaleString('en')}`)
    .join(', ');
  out.push(
    `Median (min–max) of the runs per point (${runsPerPoint}), each page in a fresh headless Chromium ` +
      `(${results.viewport.width}×${results.viewport.height}). Times are from navigation start on the page's own clock, to a frame painted. ` +
      `"> x" means a run hit the ${options.timeoutMs / 1000} s limit.`,
  );
  out.push('');
  out.push(
    table(
      ['N', 'Figure', 'Ours', 'Peer (supabase-js + zod)', 'Ours / peer'],
      results.comparisons.map((/** @type {any} */ c) => {
        // A page that hides the oldest entry is never fully usable: say so rather than "n/a".
        const never = (/** @type {'ours' | 'peer'} */ page) =>
          c.metric === 'usableMs' && c[page].runs === 0 && entriesShown(results.comparisons, c.n, page)?.hides;
        return [
          c.n.toLocaleString('en'),
          c.label,
          never('ours') ? 'never (hides entries)' : formatSummary(c.ours, c.unit),
          never('peer') ? 'never (hides entries)' : formatSummary(c.peer, c.unit),
          formatRatio(c.ratio),
        ];
      }),
    ),
  );
  out.push('');

  out.push('## Downloads');
  out.push('');
  out.push('Everything a first visit loads from the page\'s origin, in kB (1 kB = 1,000 bytes): raw / gzip -9 / brotli 11.');
  out.push('');
  const pages = [
    ['Ours, logbook open', results.assets.ours.logbook],
    ['Peer, logbook open', results.assets.peer.logbook],
    ['Ours, teaser', results.assets.ours.teaser],
  ];
  out.push(
    table(
      ['Page', 'JS', 'wasm', 'CSS', 'HTML', 'JS + wasm + CSS'],
      pages.map(([name, page]) => {
        const t = page.totals;
        const sizes = (/** @type {any} */ x) => (x.count === 0 ? '–' : `${kB(x.raw)} / ${kB(x.gzip)} / ${kB(x.brotli)}`);
        return [name, sizes(t.js), sizes(t.wasm), sizes(t.css), sizes(t.html), sizes(t.code)];
      }),
    ),
  );
  out.push('');
  for (const [name, page] of pages) {
    out.push(`${name}: ${page.assets.map((/** @type {any} */ a) => `\`${a.path}\` ${kB(a.gzip)} kB gz`).join(', ')}.`);
    out.push('');
  }
  if (results.teaser) {
    out.push(
      `Teaser with scripts disabled: ${results.teaser.inServedHtml ? 'the same text as with scripts (it is in the served HTML)' : `"${results.teaser.textWithoutScripts.slice(0, 80)}" (the text is rendered by script)`}; ` +
        `first contentful paint ${formatValue(results.assets.ours.teaser.firstContentfulPaintMs, 'ms')}.`,
    );
    out.push('');
  }

  out.push('## Parse + validation in the browser');
  out.push('');
  out.push(
    'Every entry, read as the page reads it: the emulator\'s own keyset pages of 1,000 rows (and the empty page ' +
      'that ends the listing), recorded once and served as fixed bytes from the harness page\'s origin for the cursor ' +
      'that asks for each. Every variant reads all N entries in those requests. ' +
      '`ours`: `client.listEntries()` (requests, parse, validate, order) plus reading the first 30 rows React renders; ' +
      '`peer-fetch-json-zod`: the same requests, `response.text()`, `JSON.parse`, zod per page; `peer-supabase-zod`: ' +
      'the same pages through supabase-js, then zod; `fetch-only`: the transport alone; `memory-*`: each page from ' +
      'bytes already in memory (`memory-ours-core`: `parseEntriesForBenchmark`).',
  );
  out.push('');
  out.push(
    table(
      ['N', 'Bytes (requests)', 'Variant', 'Median (min–max)', 'Entries/s', 'MB/s'],
      (results.parsing ?? []).map((/** @type {any} */ p) => [
        p.entries.toLocaleString('en'),
        `${(p.bytes / 1e6).toFixed(2)} MB (${p.requests ?? 1})`,
        p.variant,
        formatSummary(p, 'ms'),
        p.variant === 'fetch-only' ? '–' : Math.round(p.entriesPerSecond).toLocaleString('en'),
        p.megabytesPerSecond.toFixed(1),
      ]),
    ),
  );
  out.push('');

  out.push('## Emulator on loopback');
  out.push('');
  if (results.load) {
    const { reads, inserts, entriesInTable, tool } = results.load;
    out.push(
      `${tool}, ${reads.connections} connections, ${reads.durationSeconds} s each, opt-level 3 build, ${entriesInTable.toLocaleString('en')} entries in the table; ` +
        'the load tool runs on the same two cores.',
    );
    out.push('');
    out.push(
      table(
        ['Load', 'Requests/s', 'p50', 'p90', 'p99', 'Failed'],
        [reads, inserts].map((l) => [
          l.name,
          Math.round(l.requestsPerSecond).toLocaleString('en'),
          `${l.latencyMs.p50} ms`,
          `${l.latencyMs.p90} ms`,
          `${l.latencyMs.p99} ms`,
          String(l.non2xx + l.errors + l.timeouts),
        ]),
      ),
    );
  } else {
    out.push('Not measured.');
  }
  out.push('');
  const problems = results.pages.flatMap((/** @type {any} */ p) =>
    p.runs.flatMap((/** @type {any} */ r, /** @type {number} */ i) => r.problems.map((/** @type {string} */ m) => `N = ${p.n} ${p.page} run ${i + 1}: ${m}`)),
  );
  if (problems.length > 0) {
    out.push('## Problems seen during the runs');
    out.push('');
    for (const problem of problems.slice(0, 40)) out.push(`- ${problem}`);
    if (problems.length > 40) out.push(`- … and ${problems.length - 40} more (see latest.json)`);
    out.push('');
  }
  return out.join('\n');
}
