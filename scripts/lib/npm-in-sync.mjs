#!/usr/bin/env node
// @ts-check
// Exit 0 when node_modules matches package-lock.json, 1 (with the reason on stdout) when `npm ci` is needed.
// npm records what it installed in node_modules/.package-lock.json; comparing it entry by entry (rather than
// a hash of the lockfile) also accepts an `npm install <pkg>` that updated both consistently.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from './repo.mjs';

/** @typedef {{ version?: string, resolved?: string, link?: boolean, optional?: boolean }} LockEntry */

/**
 * @param {string} file
 * @returns {Record<string, LockEntry>}
 */
function lockPackages(file) {
  const parsed = JSON.parse(readFileSync(file, 'utf8'));
  return parsed.packages ?? {};
}

/** @returns {string | null} why node_modules is out of date, or null when it is in sync */
export function npmOutOfSyncReason(root = repoRoot) {
  const lockfile = path.join(root, 'package-lock.json');
  const installed = path.join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(lockfile)) return 'package-lock.json is missing';
  if (!existsSync(installed)) return 'node_modules is missing or was not installed by npm';
  const wanted = lockPackages(lockfile);
  const have = lockPackages(installed);
  for (const [location, entry] of Object.entries(wanted)) {
    if (location === '' || !location.includes('node_modules/')) continue; // the root and workspace sources
    const current = have[location];
    if (current === undefined) {
      // Platform-specific optional packages (other OS/CPU) are listed in the lockfile but never installed.
      if (entry.optional) continue;
      return `${location} is not installed`;
    }
    if (current.version !== entry.version || current.resolved !== entry.resolved || Boolean(current.link) !== Boolean(entry.link)) {
      return `${location} is ${current.version ?? current.resolved} but the lockfile wants ${entry.version ?? entry.resolved}`;
    }
    if (!existsSync(path.join(root, location))) return `${location} is missing on disk`;
  }
  for (const location of Object.keys(have)) {
    if (location.includes('node_modules/') && !(location in wanted)) return `${location} is installed but not in the lockfile`;
  }
  return null;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const reason = npmOutOfSyncReason();
  if (reason !== null) {
    console.log(reason);
    process.exit(1);
  }
}
