// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { contentSecurityPolicy, inlineScriptHashes, socketOrigin } from './csp.ts';

/** The policy as a map of directive name to its sources. */
function directives(policy: string): Record<string, string[]> {
  return Object.fromEntries(
    policy.split(';').map((directive) => {
      const [name = '', ...sources] = directive.trim().split(/\s+/);
      return [name, sources];
    }),
  );
}

describe('contentSecurityPolicy', () => {
  it('allows the page\'s own scripts, manifest and worker, wasm compilation and connections to itself and the backend only', () => {
    expect(directives(contentSecurityPolicy('https://abc.supabase.co'))).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'", "'wasm-unsafe-eval'"],
      'style-src': ["'self'"],
      'img-src': ["'self'", 'data:'],
      'font-src': ["'self'"],
      'connect-src': ["'self'", 'https://abc.supabase.co', 'wss://abc.supabase.co'],
      'manifest-src': ["'self'"],
      'worker-src': ["'self'"],
      'object-src': ["'none'"],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
    });
  });

  it('allows connections only to the page itself when no backend is configured', () => {
    expect(directives(contentSecurityPolicy(null))['connect-src']).toEqual(["'self'"]);
  });

  it('allows the emulator\'s plain WebSocket origin for an http:// backend, port kept', () => {
    expect(directives(contentSecurityPolicy('http://127.0.0.1:54321'))['connect-src']).toEqual([
      "'self'",
      'http://127.0.0.1:54321',
      'ws://127.0.0.1:54321',
    ]);
  });

  it('allows inline scripts by their hashes only', () => {
    const policy = contentSecurityPolicy(null, ["'sha256-abc='"]);
    expect(directives(policy)['script-src']).toEqual(["'self'", "'wasm-unsafe-eval'", "'sha256-abc='"]);
    expect(policy).not.toMatch(/unsafe-inline/);
  });

  it('never allows inline code or eval', () => {
    const policy = contentSecurityPolicy('http://127.0.0.1:54321');
    expect(policy).not.toMatch(/unsafe-inline|'unsafe-eval'|\*|(https?|wss?):(?!\/\/127\.0\.0\.1:54321)/);
  });
});

describe('socketOrigin', () => {
  it('maps https to wss and http to ws, keeping host and port', () => {
    expect(socketOrigin('https://abc.supabase.co')).toBe('wss://abc.supabase.co');
    expect(socketOrigin('http://localhost:8080')).toBe('ws://localhost:8080');
  });

  it('refuses an origin that is not HTTP(S)', () => {
    expect(() => socketOrigin('ftp://example.com')).toThrow('the backend origin is not HTTP(S): ftp://example.com');
  });
});

describe('inlineScriptHashes', () => {
  const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

  it("hashes each inline script's text as written, in order, and no script with a src", () => {
    const html =
      '<head><script id="a" data-x="1">let a = "é";\n</script><script type="module" crossorigin src="/assets/index.js"></script>' +
      '<script>b()</script></head>';
    expect(inlineScriptHashes(html)).toEqual([sha256('let a = "é";\n'), sha256('b()')]);
  });

  it('finds none in a page without inline scripts', () => {
    expect(inlineScriptHashes('<script src="/a.js"></script><p>no script</p>')).toEqual([]);
  });
});
