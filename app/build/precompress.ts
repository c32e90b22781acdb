import { createReadStream } from 'node:fs';
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Connect, Plugin } from 'vite';

/** The files served compressed, by extension, with their Content-Type. */
export const COMPRESSED_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
};

/** The encodings written beside each file, in the order the server prefers them. */
export const ENCODINGS = [
  { name: 'br', extension: '.br' },
  { name: 'gzip', extension: '.gz' },
] as const;

export type Encoding = (typeof ENCODINGS)[number]['name'];

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** `content` in each encoding, at the highest level: it is compressed once, at build time. */
export async function compress(content: Uint8Array): Promise<Record<Encoding, Uint8Array>> {
  const [br, gz] = await Promise.all([
    brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: content.length } }),
    gzipAsync(content, { level: constants.Z_BEST_COMPRESSION }),
  ]);
  return { br, gzip: gz };
}

/**
 * The encoding to answer with, from an Accept-Encoding header and the encodings that exist for the file: br, else
 * gzip, each only if the client accepts it (a q of 0 refuses it; `*` accepts any not named); null for the file as is.
 */
export function chooseEncoding(acceptEncoding: string | undefined, available: readonly Encoding[]): Encoding | null {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [token = '', ...params] = part.trim().toLowerCase().split(';');
    if (token === '') continue;
    const q = params.map((param) => /^\s*q=([0-9.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    accepted.set(token.trim(), q === undefined ? 1 : Number(q));
  }
  for (const { name } of ENCODINGS) {
    if (!available.includes(name)) continue;
    const q = accepted.get(name) ?? accepted.get('*') ?? 0;
    if (q > 0) return name;
  }
  return null;
}

/**
 * Writes a brotli (.br) and a gzip (.gz) copy beside every HTML, JS, CSS, wasm, manifest and SVG file of the build
 * (`vite build`), and serves them in `vite preview` by the request's Accept-Encoding. Vite's preview compresses
 * only what its MIME table calls compressible, which leaves out application/wasm: the wasm client would travel at
 * twice its compressed size. A static host can serve the same copies (docs/deploying.md).
 */
export function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'geocache:precompress',
    configResolved(config) {
      outDir = path.resolve(config.root, config.build.outDir);
    },
    async writeBundle(_options, bundle) {
      await Promise.all(
        Object.values(bundle).map(async (file) => {
          if (!(path.extname(file.fileName) in COMPRESSED_TYPES)) return;
          const content = file.type === 'chunk' ? new TextEncoder().encode(file.code) : typeof file.source === 'string' ? new TextEncoder().encode(file.source) : file.source;
          const encoded = await compress(content);
          await Promise.all(ENCODINGS.map(({ name, extension }) => writeFile(path.join(outDir, `${file.fileName}${extension}`), encoded[name])));
        }),
      );
    },
    configurePreviewServer(server) {
      const root = path.resolve(server.config.root, server.config.build.outDir);
      server.middlewares.use(precompressedFiles(root, server.config.base));
    },
  };
}

/** Answers a GET or HEAD for a file of `root` that has precompressed copies with the best one the client accepts. */
export function precompressedFiles(root: string, base: string): Connect.NextHandleFunction {
  return (request, response, next) => {
    void (async () => {
      if ((request.method !== 'GET' && request.method !== 'HEAD') || request.url === undefined) return next();
      let pathname = decodeURIComponent(new URL(request.url, 'http://host').pathname);
      if (!pathname.startsWith(base)) return next();
      pathname = `/${pathname.slice(base.length)}`;
      if (pathname.endsWith('/')) pathname += 'index.html';
      const type = COMPRESSED_TYPES[path.extname(pathname)];
      const file = path.resolve(root, `.${pathname}`);
      if (type === undefined || !file.startsWith(root + path.sep)) return next();

      const sizes = new Map<Encoding, number>();
      for (const { name, extension } of ENCODINGS) {
        const size = await stat(`${file}${extension}`).then(
          (found) => (found.isFile() ? found.size : undefined),
          () => undefined,
        );
        if (size !== undefined) sizes.set(name, size);
      }
      const encoding = chooseEncoding(request.headers['accept-encoding'], [...sizes.keys()]);
      if (encoding === null) return next();
      const { extension } = ENCODINGS.find(({ name }) => name === encoding) ?? ENCODINGS[0];
      response.statusCode = 200;
      response.setHeader('Content-Type', type);
      response.setHeader('Content-Encoding', encoding);
      response.setHeader('Content-Length', String(sizes.get(encoding)));
      response.setHeader('Vary', 'Accept-Encoding');
      // As vite preview's own files: always revalidated, so a new build is seen at once.
      response.setHeader('Cache-Control', 'no-cache');
      if (request.method === 'HEAD') return response.end();
      createReadStream(`${file}${extension}`).on('error', next).pipe(response);
    })().catch(next);
  };
}
