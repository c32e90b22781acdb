import http from 'node:http';

/** Headers about the connection and the body's framing: they do not carry over to a fulfilled body. */
const FRAMING = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** A response fetched by the test itself, to hand to `route.fulfill` (which sets the body's length itself). */
export interface FetchedAnew {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/**
 * GETs `url` on a connection of its own. Playwright's `route.fetch()` reuses kept-alive sockets, and a server may close
 * an idle one just as it is reused (Node's closes them after 5 s): the request then fails with ECONNRESET, by chance.
 * A fresh connection has nothing to race with.
 */
export function fetchAnew(url: string): Promise<FetchedAnew> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined && !FRAMING.has(name)) flat[name] = Array.isArray(value) ? value.join(', ') : value;
        }
        resolve({ status: response.statusCode ?? 0, headers: flat, body: Buffer.concat(chunks) });
      });
    });
    request.on('error', reject);
  });
}
