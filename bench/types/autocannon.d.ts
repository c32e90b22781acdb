// autocannon ships no type declarations; bench/lib/load.mjs describes what it reads from its results.
declare module 'autocannon';
