// @ts-check
// field.md: the field visit's targets, its times and bytes for both pages, and the floor beside what we reach.
import { runHeader } from './mobile-report.mjs';
import { formatRatio, formatSummary } from './report.mjs';
import { ratio } from './stats.mjs';

/** @param {string[]} header @param {string[][]} rows */
function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

/** @param {boolean | null} met */
const metText = (met) => (met === null ? 'not measured' : met ? '**met**' : 'not met');
/** @param {number} bytes */
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

/**
 * @param {any} results  the object written to field.json
 */
export function renderFieldMarkdown(results) {
  const { profile, summaries, floor } = results;
  const out = [];
  out.push('# Field visit: our logbook page against supabase-js + zod');
  out.push('');
  out.push(runHeader({ ...results, mode: results.options.runs < 3 ? 'quick' : 'full' }));
  out.push('');
  out.push(
    `Profile (Chrome DevTools Protocol, on the page and every worker it starts): ${profile.latencyMs} ms round trip, ` +
      `${profile.downloadKbitPerSecond} kbit/s down, ${profile.uploadKbitPerSecond} kbit/s up, CPU ${profile.cpuSlowdown}× slower; ` +
      `viewport ${results.viewport.width}×${results.viewport.height}, touch. ${results.options.entries} entries. Both production builds served ` +
      'as the mobile profile serves them. Each run is a cold first visit in a fresh browser profile: the visitor types ' +
      `for ${results.options.typingMs / 1000} s from the moment both fields take input, a key at a time, then presses Sign Logbook. ` +
      'Times run from navigation start to the frame that shows each state.',
  );
  out.push('');
  out.push('## Targets');
  out.push('');
  out.push(table(['Target', 'Measured', 'Met'], results.targets.map((/** @type {any} */ t) => [t.target, t.measured, metText(t.met)])));
  out.push('');
  out.push('## Visits');
  out.push('');
  out.push(`Median (min–max) of ${results.options.runs} cold visit(s) per page.`);
  out.push('');
  /** @type {[string, string, 'ms' | 'bytes' | 'count'][]} */
  const rows = [
    ['Both fields take input (`typeable`)', 'typeable', 'ms'],
    ['The newest entry painted', 'firstCard', 'ms'],
    ['Own entry shown (`signed`)', 'signed', 'ms'],
    ['Press to own entry shown', 'pressToShown', 'ms'],
    ['Bytes before `typeable` (on the wire)', 'bytesBeforeTypeable', 'bytes'],
    ['Responses before `typeable`', 'requestsBeforeTypeable', 'count'],
  ];
  out.push(
    table(
      ['From navigation start', 'Ours', 'Peer', 'Ours / peer'],
      rows.map(([label, key, unit]) => [
        label,
        formatSummary(summaries.ours[key], unit),
        formatSummary(summaries.peer[key], unit),
        formatRatio(ratio(summaries.ours[key], summaries.peer[key])),
      ]),
    ),
  );
  out.push('');
  out.push('## The floor');
  out.push('');
  out.push(
    `The least a first visit could do on this profile. Before the form takes input: ${floor.ours.typeable.roundTrips} round trips ` +
      `(${floor.ours.typeable.roundTrips * profile.latencyMs} ms of latency: a connection, the document, its render-blocking ` +
      `stylesheets) and ${kB(floor.ours.typeable.bytes)} (brotli: ${floor.ours.typeable.files.map((/** @type {string} */ f) => `\`${f}\``).join(', ')}); ` +
      `we reach \`typeable\` after ${summaries.ours.requestsBeforeTypeable.median ?? 'n/a'} responses and ` +
      `${summaries.ours.bytesBeforeTypeable.median === null ? 'n/a' : kB(summaries.ours.bytesBeforeTypeable.median)} on the wire ` +
      `(the peer: ${summaries.peer.requestsBeforeTypeable.median ?? 'n/a'} responses, ` +
      `${summaries.peer.bytesBeforeTypeable.median === null ? 'n/a' : kB(summaries.peer.bytesBeforeTypeable.median)}). ` +
      `A sign sent at the earliest: ${floor.ours.signSent.roundTrips} more round trips (${floor.ours.signSent.note}) and no more bytes ` +
      '(the served page\'s own script could send it). ' +
      `From the press to the own entry shown: ${floor.ours.signShown.roundTrips} round trip (${floor.ours.signShown.note}); ` +
      'ours shows the row its insert returns, the peer reads the list again after its insert.',
  );
  out.push('');
  const transfer = (/** @type {number} */ bytes) => `${Math.round((bytes * 8) / profile.downloadKbitPerSecond).toLocaleString('en')} ms`;
  out.push(
    `What we reach: ours sends a sign once the ${floor.ours.signReady.files} files its served head asks for at once have arrived, ` +
      `${kB(floor.ours.signReady.bytes)} (brotli; the wasm client is most of it): the same ${floor.ours.signReady.roundTrips} round trips ` +
      `as the form, then about ${transfer(floor.ours.signReady.bytes)} of transfer at ${profile.downloadKbitPerSecond} kbit/s, then the ` +
      `${floor.ours.signSent.roundTrips} of the sign. The peer needs its ${floor.peer.signReady.files} files, ` +
      `${kB(floor.peer.signReady.bytes)} (about ${transfer(floor.peer.signReady.bytes)}), before its form takes input at all.`,
  );
  out.push('');
  const problems = ['ours', 'peer'].flatMap((page) =>
    results.runs[page].flatMap((/** @type {any} */ r, /** @type {number} */ i) => r.problems.map((/** @type {string} */ m) => `${page} run ${i + 1}: ${m}`)),
  );
  if (problems.length > 0) {
    out.push('## Problems seen during the runs');
    out.push('');
    for (const problem of problems.slice(0, 40)) out.push(`- ${problem}`);
    out.push('');
  }
  return out.join('\n');
}
