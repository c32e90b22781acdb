/**
 * The page's Content-Security-Policy, delivered as a `<meta http-equiv>` tag in the built index.html so that any
 * static host serves it. Everything is denied unless listed:
 * - scripts: only the page's own files, plus WebAssembly compilation ('wasm-unsafe-eval', which allows compiling
 *   wasm and nothing else: no eval, no inline script);
 * - connections: the page's origin (the wasm file is fetched), the backend's origin, and the same origin as a
 *   WebSocket (`wss://` for `https://`, `ws://` for an `http://` emulator) for the live logbook: under CSP 3 an
 *   `https://` source does not match a `wss://` URL;
 * - styles, fonts and images: the page's own files (images also `data:`, for the empty favicon in index.html);
 * - the web app manifest and the service worker: the page's own files (manifest.webmanifest, service-worker.js).
 * `frame-ancestors` is not allowed in a meta tag; a host that can set headers may add it there.
 */
export function contentSecurityPolicy(backendOrigin: string | null): string {
  const directives: [string, ...string[]][] = [
    ['default-src', "'none'"],
    ['script-src', "'self'", "'wasm-unsafe-eval'"],
    ['style-src', "'self'"],
    ['img-src', "'self'", 'data:'],
    ['font-src', "'self'"],
    ['connect-src', "'self'", ...(backendOrigin === null ? [] : [backendOrigin, socketOrigin(backendOrigin)])],
    ['manifest-src', "'self'"],
    ['worker-src', "'self'"],
    ['object-src', "'none'"],
    ['base-uri', "'none'"],
    ['form-action', "'none'"],
  ];
  return directives.map((directive) => directive.join(' ')).join('; ');
}

/** The WebSocket origin of an `http(s)://` origin: `wss://` for `https://`, `ws://` for `http://`. */
export function socketOrigin(origin: string): string {
  const url = new URL(origin);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`the backend origin is not HTTP(S): ${origin}`);
  return `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}`;
}
