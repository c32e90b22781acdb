#!/usr/bin/env bash
# Builds the wasm package wasm/pkg (npm name geocache-client) exactly as the app and tests consume it.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib/toolchain.sh
source "$repo_root/scripts/lib/toolchain.sh"
cd "$repo_root"

use_wasm_toolchain
# wasm-pack runs the first wasm-opt on PATH: the npm binaryen one, never Debian's (it corrupts wasm-bindgen output).
PATH="$repo_root/node_modules/.bin:$PATH"
exec wasm-pack build wasm --release --target bundler --weak-refs --out-name geocache_client "$@"
