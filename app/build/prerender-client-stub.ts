/**
 * Stands in for the wasm client (`geocache-client`) while the logbook's shell is rendered at build time
 * (prerender-logbook.ts): rendering never calls the client, only effects do, and those do not run there.
 */
export function createClient(): never {
  throw new Error('prerender-logbook: the wasm client was called while rendering the logbook at build time; only effects may call it.');
}
