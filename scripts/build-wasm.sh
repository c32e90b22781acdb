#!/usr/bin/env bash
# Builds the wasm package geocache-client:
#   bash scripts/build-wasm.sh        wasm/pkg, the npm package (default features: every client; its package.json
#                                     finished by scripts/lib/npm-package.mjs), and the logbook page's two builds (see
#                                     wasm/Cargo.toml): wasm/pkg-logbook, the reads and signs only (--no-default-features
#                                     --features rest), which the app imports as "geocache-client" for its first
#                                     entries, and wasm/pkg-live, the standalone realtime client only
#                                     (--no-default-features --features realtime), which the app imports lazily as
#                                     "geocache-live" once those entries are painted.
#   bash scripts/build-wasm.sh bench  wasm/pkg-bench: the npm package plus `parseEntriesForBenchmark` (--features
#                                     bench), for `npm run bench` only.
# Any further arguments go to wasm-pack.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib/toolchain.sh
source "$repo_root/scripts/lib/toolchain.sh"
cd "$repo_root"

use_wasm_toolchain
# wasm-pack runs the first wasm-opt on PATH: the npm binaryen one, never Debian's (it corrupts wasm-bindgen output).
PATH="$repo_root/node_modules/.bin:$PATH"
build=(wasm-pack build wasm --release --target bundler --weak-refs --out-name geocache_client)

if [[ "${1:-}" == bench ]]; then
  shift
  exec "${build[@]}" --out-dir pkg-bench --features bench "$@"
fi
"${build[@]}" "$@"
node scripts/lib/npm-package.mjs wasm/pkg
"${build[@]}" --out-dir pkg-logbook --no-default-features --features rest "$@"
# Its own out-name, so the page's two .wasm assets are told apart by name (geocache_live_bg-*.wasm).
exec "${build[@]/geocache_client/geocache_live}" --out-dir pkg-live --no-default-features --features realtime "$@"
