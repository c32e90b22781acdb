// @ts-check
// Port helpers: other programs on a shared machine may hold common ports, so ask the OS instead of guessing.
import net from 'node:net';

export const LOOPBACK = '127.0.0.1';

/**
 * Resolves to a port that was free a moment ago (the OS picks it). Another program could still take it
 * before the caller binds, which is why servers we start are told `--strictPort`/fail loudly.
 * @param {string} [host]
 * @returns {Promise<number>}
 */
export function findFreePort(host = LOOPBACK) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('the OS returned no port'))));
    });
  });
}

/**
 * Whether a TCP listener could bind host:port right now.
 * @param {number} port
 * @param {string} [host]
 * @returns {Promise<boolean>}
 */
export function isPortFree(port, host = LOOPBACK) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', (/** @type {NodeJS.ErrnoException} */ error) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * Parses a port from an environment variable, naming the variable when it is not a valid port.
 * @param {string} variable
 * @param {number} fallback
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {number}
 */
export function portFromEnv(variable, fallback, env = process.env) {
  const raw = env[variable];
  if (raw === undefined || raw.trim() === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${variable} must be a TCP port number between 1 and 65535, got "${raw}".`);
  }
  return port;
}
