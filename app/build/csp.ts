import { createHash } from 'node:crypto';

/**
 * The page's Content-Security-Policy, delivered as a `<meta http-equiv>` tag in the built index.html so that any
 * static host serves it. Everything is denied unless listed:
 * - scripts: only the page's own files, the inline scripts the build itself wrote into the page, each by the hash
 *   of its exact text (`scriptHashes`; the open logbook has one, first-paint/inline-script.ts), plus WebAssembly
 *   compilation ('wasm-unsafe-eval', which allows compiling wasm and nothing else: no eval, and no other inline
 *   script);
 * - connections: the page's origin (the wasm file is fetched), the backend's origin, and the same origin as a
 *   WebSocket (`wss://` for `https://`, `ws://` for an `http://` emulator) for the live logbook: under CSP 3 an
 *   `https://` source does not match a `wss://` URL;
 * - styles, fonts and images: the page's own files (images also `data:`, for the empty favicon in index.html);
 * - the web app manifest and the service worker: the page's own files (manifest.webmanifest, service-worker.js).
 * `frame-ancestors` is not allowed in a meta tag; a host that can set headers may add it there.
 */
export function contentSecurityPolicy(backendOrigin: string | null, scriptHashes: readonly string[] = []): string {
  const directives: [string, ...string[]][] = [
    ['default-src', "'none'"],
    ['script-src', "'self'", "'wasm-unsafe-eval'", ...scriptHashes],
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

/** An inline script's opening tag: a `<script>` without a `src` attribute. */
const INLINE_SCRIPT = /<script\b(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi;

/**
 * The CSP source that allows each inline script of `html` (`'sha256-...'` of its text as written), in order. The
 * build writes every inline script of the page itself, so the policy names exactly those.
 */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(INLINE_SCRIPT)].map(([, text = '']) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`);
}
