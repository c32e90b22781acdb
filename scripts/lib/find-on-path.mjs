// @ts-check
// Tools are found by name on PATH, never at a path written into the repository.
import { execFileSync } from 'node:child_process';

/**
 * The first of `names` found on PATH, or undefined.
 * @param {string[]} names
 * @param {NodeJS.ProcessEnv} [env]
 */
export function findOnPath(names, env = process.env) {
  for (const name of names) {
    try {
      const found = execFileSync('sh', ['-c', 'command -v "$1"', 'sh', name], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (found) return found;
    } catch {
      // not on PATH: try the next name
    }
  }
  return undefined;
}
