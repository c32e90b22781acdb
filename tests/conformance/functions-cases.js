// @ts-check
// One table of Edge Functions calls, run by supabase-js in Node (functions.test.mjs) and by our wasm client in
// Chromium (wasm/tests/functions.rs imports this module), against the function server of
// tests/fixtures/function-server.mjs behind an emulator. Browser-safe and self-contained (wasm-bindgen copies this one
// file into the test page), and `.js` rather than `.mjs`, which the wasm-bindgen test server does not serve as
// JavaScript.

/**
 * @typedef {object} FunctionCase
 * @property {string} title
 * @property {string} name                     the function (and path) invoked
 * @property {'publishable' | 'anon'} key      the client's key; no one is signed in
 * @property {'emulator' | 'unreachable'} [backend]  `unreachable`: a URL where nothing listens
 * @property {Record<string, unknown>} [options]     invoke's options, JSON-able
 * @property {'blob' | 'arraybuffer' | 'formdata'} [bodyAs]  turn options.body (a string, or fields) into this
 * @property {Record<string, unknown>} expect  a subset of `normalize`'s answer; `null` also matches absent
 * @property {Record<string, unknown>} [expectWithKeyAsBearer]  merged into `expect` for a supabase-js that predates
 *   today's key rule and still sends a publishable key as the functions' bearer (2.109 does)
 */

/** @type {FunctionCase[]} */
export const CASES = [
  {
    title: 'a JSON body, publishable key, no session: no bearer',
    name: 'echo',
    key: 'publishable',
    options: { body: { hello: 'world' } },
    expect: {
      error: null,
      status: 200,
      dataType: 'json',
      data: { method: 'POST', path: '/echo', mediaType: 'application/json', hasAuthorization: false, hasApikey: true, body: '{"hello":"world"}' },
    },
    expectWithKeyAsBearer: { data: { hasAuthorization: true } },
  },
  {
    title: 'a legacy anon key is the bearer',
    name: 'echo',
    key: 'anon',
    expect: { error: null, status: 200, data: { hasAuthorization: true, mediaType: null, body: '' } },
  },
  {
    title: 'a string body is text/plain',
    name: 'echo',
    key: 'publishable',
    options: { body: 'hello' },
    expect: { error: null, data: { mediaType: 'text/plain', body: 'hello' } },
  },
  {
    title: 'a Blob is application/octet-stream',
    name: 'echo',
    key: 'publishable',
    options: { body: 'blob bytes' },
    bodyAs: 'blob',
    expect: { error: null, data: { mediaType: 'application/octet-stream', body: 'blob bytes' } },
  },
  {
    title: 'an ArrayBuffer is application/octet-stream',
    name: 'echo',
    key: 'publishable',
    options: { body: 'buffer bytes' },
    bodyAs: 'arraybuffer',
    expect: { error: null, data: { mediaType: 'application/octet-stream', body: 'buffer bytes' } },
  },
  {
    title: 'FormData goes as multipart with fetch\'s boundary',
    name: 'echo',
    key: 'publishable',
    options: { body: { field: 'form value' } },
    bodyAs: 'formdata',
    expect: { error: null, data: { mediaType: 'multipart/form-data' } },
  },
  {
    title: 'the caller\'s headers and method win; an object body is still JSON',
    name: 'echo/sub/path',
    key: 'publishable',
    options: { method: 'PUT', headers: { 'Content-Type': 'application/x-custom', 'x-custom': 'yes' }, body: { a: 1 } },
    expect: {
      error: null,
      data: { method: 'PUT', path: '/echo/sub/path', mediaType: 'application/x-custom', body: '{"a":1}', headers: { 'x-custom': 'yes' } },
    },
  },
  {
    title: 'GET sends no body',
    name: 'echo',
    key: 'publishable',
    options: { method: 'GET' },
    expect: { error: null, data: { method: 'GET', body: '' } },
  },
  {
    title: 'text/plain is read as text',
    name: 'text',
    key: 'publishable',
    expect: { error: null, status: 200, dataType: 'text', text: 'plain text' },
  },
  {
    title: 'octet-stream is read as a Blob',
    name: 'binary',
    key: 'publishable',
    expect: { error: null, dataType: 'blob', text: 'raw bytes' },
  },
  {
    title: 'an event stream is the Response itself',
    name: 'stream',
    key: 'publishable',
    expect: { error: null, dataType: 'response', text: 'data: 1\n\ndata: 2\n\n' },
  },
  {
    title: 'multipart is read as FormData',
    name: 'form',
    key: 'publishable',
    expect: { error: null, dataType: 'formdata', data: { field: 'value' } },
  },
  {
    title: 'a function that fails with 500 is a FunctionsHttpError with the Response',
    name: 'fail',
    key: 'publishable',
    expect: { error: 'FunctionsHttpError', message: 'Edge Function returned a non-2xx status code', status: 500, hasResponse: true, contextJson: { error: 'function failed' } },
  },
  {
    title: 'a missing function is the platform\'s 404 NOT_FOUND, no relay error',
    name: 'missing',
    key: 'publishable',
    expect: {
      error: 'FunctionsHttpError',
      status: 404,
      relayHeader: null,
      contextJson: { code: 'NOT_FOUND', message: 'Requested function was not found' },
    },
  },
  {
    title: 'a function server that drops the call is a FunctionsRelayError',
    name: 'crash',
    key: 'publishable',
    expect: { error: 'FunctionsRelayError', message: 'Relay Error invoking the Edge Function', status: 502, relayHeader: 'true', hasResponse: true },
  },
  {
    title: 'verify_jwt on: a publishable key without a session is refused',
    name: 'guarded',
    key: 'publishable',
    expect: { error: 'FunctionsHttpError', status: 401, contextJson: { code: 'UNAUTHORIZED_NO_AUTH_HEADER' } },
    // A publishable key is no JWT either way.
    expectWithKeyAsBearer: { contextJson: { code: 'UNAUTHORIZED_INVALID_JWT_FORMAT', message: 'Invalid JWT' } },
  },
  {
    title: 'verify_jwt on: the legacy anon key passes',
    name: 'guarded',
    key: 'anon',
    expect: { error: null, status: 200, data: { path: '/guarded', hasAuthorization: true } },
  },
  {
    title: 'JSON that does not parse is the error, with no response',
    name: 'bad-json',
    key: 'publishable',
    expect: { error: 'SyntaxError', hasResponse: false },
  },
  {
    title: 'a call over its timeout is aborted: a FunctionsFetchError whose context is the AbortError',
    name: 'slow',
    key: 'publishable',
    options: { timeout: 100 },
    expect: { error: 'FunctionsFetchError', contextName: 'AbortError', hasResponse: false },
  },
  {
    title: 'a call within its timeout is answered',
    name: 'text',
    key: 'publishable',
    options: { timeout: 5000 },
    expect: { error: null, text: 'plain text' },
  },
  {
    title: 'no server at all is a FunctionsFetchError whose context is what fetch threw',
    name: 'echo',
    key: 'publishable',
    backend: 'unreachable',
    expect: { error: 'FunctionsFetchError', message: 'Failed to send a request to the Edge Function', contextName: 'TypeError', hasResponse: false },
  },
];

/**
 * invoke's options for a case, with the body turned into a Blob, ArrayBuffer or FormData where it says so.
 * @param {FunctionCase} testCase
 * @returns {Record<string, unknown>}
 */
export function buildOptions(testCase) {
  const options = { ...testCase.options };
  const body = options.body;
  if (testCase.bodyAs === 'blob') options.body = new Blob([String(body)]);
  if (testCase.bodyAs === 'arraybuffer') options.body = new TextEncoder().encode(String(body)).buffer;
  if (testCase.bodyAs === 'formdata') {
    const form = new FormData();
    for (const [field, value] of Object.entries(/** @type {Record<string, string>} */ (body))) form.append(field, value);
    options.body = form;
  }
  return options;
}

/**
 * invoke's `{ data, error, response }` as plain JSON-able facts, the same for both clients.
 * @param {{ data: unknown, error: unknown, response?: Response }} result
 */
export async function normalize(result) {
  const { data, error, response } = result;
  /** @type {Record<string, unknown>} */
  const facts = { hasResponse: response !== undefined, error: null, status: response?.status ?? null };
  if (error !== null && error !== undefined) {
    const failure = /** @type {Error & { context?: unknown }} */ (error);
    facts.error = failure.name;
    facts.message = failure.message;
    const context = failure.context;
    if (context instanceof Response) {
      facts.status = context.status;
      facts.relayHeader = context.headers.get('x-relay-error');
      facts.contextJson = await context.json().catch(() => null);
    } else if (context instanceof Error) {
      facts.contextName = context.name;
    }
    return facts;
  }
  if (response !== undefined) facts.relayHeader = response.headers.get('x-relay-error');
  if (data instanceof Response) {
    facts.dataType = 'response';
    facts.text = await data.text();
  } else if (data instanceof Blob) {
    facts.dataType = 'blob';
    facts.text = await data.text();
  } else if (data instanceof FormData) {
    facts.dataType = 'formdata';
    facts.data = Object.fromEntries([...data.entries()].map(([field, value]) => [field, String(value)]));
  } else if (typeof data === 'string') {
    facts.dataType = 'text';
    facts.text = data;
  } else {
    facts.dataType = 'json';
    facts.data = data;
  }
  return facts;
}

/**
 * Where `actual` differs from the subset `expected` (null when it does not): objects are compared key by key, an
 * expected `null` also accepts an absent value, anything else must be equal.
 * @param {unknown} expected
 * @param {unknown} actual
 * @param {string} [at]
 * @returns {string | null}
 */
export function mismatch(expected, actual, at = '') {
  if (expected === null) return actual === null || actual === undefined ? null : `${at || 'value'}: expected null, got ${JSON.stringify(actual)}`;
  if (typeof expected === 'object') {
    if (typeof actual !== 'object' || actual === null) return `${at || 'value'}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const found = mismatch(value, /** @type {Record<string, unknown>} */ (actual)[key], `${at}.${key}`);
      if (found !== null) return found;
    }
    return null;
  }
  return expected === actual ? null : `${at || 'value'}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}
