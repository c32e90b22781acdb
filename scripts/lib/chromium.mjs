// @ts-check
// The flags every harness here starts Debian's Chromium with (the tests, the wasm-bindgen runner, the packaging test
// and the benchmark): headless, on a machine without a display or network.

/** Without the background-networking flags Chromium floods a closed network with refused connections. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
