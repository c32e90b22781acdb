#!/usr/bin/env bash
# Builds the wasm package geocache-client:
#   bash scripts/build-wasm.sh        wasm/pkg, the npm package (default features: the logbook and the auth client;
#                                     its package.json finished by scripts/lib/npm-package.mjs), and wasm/pkg-logbook,
#                                     the logbook page's build: realtime without the auth client (--no-default-features
#                                     --features realtime; see wasm/Cargo.toml), which the app imports as
#                                     "geocache-client".
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
exec "${build[@]}" --out-dir pkg-logbook --no-default-features --features realtime "$@"
