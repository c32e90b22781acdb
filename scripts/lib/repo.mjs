// @ts-check
// Paths every launcher shares, resolved from this file so callers may run from any directory.
import { fileURLToPath } from 'node:url';
import path from 'node:path';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const appDir = path.join(repoRoot, 'app');
export const emulatorBinary = path.join(repoRoot, 'target', 'debug', 'geocache-emulator');
/** Vite is started by its binary, not through npx, so the PID we hold is the server's and stopping it stops Vite. */
export const viteBinary = path.join(repoRoot, 'node_modules', '.bin', 'vite');
