/**
 * The value of `pub const NAME: Type = value;` in Rust source (read with Vite's `?raw`), with `_` digit separators
 * removed: for tests that hold a constant the TypeScript writes again to the Rust one.
 */
export function rustConstant(source: string, name: string): string {
  const found = new RegExp(`pub const ${name}: [^=]+= ([^;]+);`).exec(source);
  if (found?.[1] === undefined) throw new Error(`no \`pub const ${name}\` in the Rust source`);
  return found[1].replace(/(?<=\d)_(?=\d)/g, '').trim();
}

/** A Rust array of integers (`[502, 503]`) as numbers. */
export function rustIntegers(value: string): number[] {
  const inner = /^\[(.*)\]$/s.exec(value)?.[1];
  if (inner === undefined) throw new Error(`not an array: ${value}`);
  return inner.split(',').map((item) => item.trim()).filter((item) => item !== '').map(Number);
}
