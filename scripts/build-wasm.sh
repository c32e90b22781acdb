#!/usr/bin/env bash
# Builds the wasm package geocache-client twice: wasm/pkg, the npm package with every feature (the tests
# and npm users), and wasm/pkg-logbook, the logbook page's build without the auth client and the benchmark
# export (--no-default-features; see wasm/Cargo.toml), which the app imports as "geocache-client".
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib/toolchain.sh
source "$repo_root/scripts/lib/toolchain.sh"
cd "$repo_root"

use_wasm_toolchain
# wasm-pack runs the first wasm-opt on PATH: the npm binaryen one, never Debian's (it corrupts wasm-bindgen output).
PATH="$repo_root/node_modules/.bin:$PATH"
wasm-pack build wasm --release --target bundler --weak-refs --out-name geocache_client "$@"
exec wasm-pack build wasm --release --target bundler --weak-refs --out-name geocache_client --out-dir pkg-logbook \
  --no-default-features "$@"
