#!/usr/bin/env bash
# Builds the wasm package geocache-client:
#   bash scripts/build-wasm.sh        wasm/pkg, the npm package (default features: every client; its package.json
#                                     finished by scripts/lib/npm-package.mjs), and the logbook page's two builds (see
#                                     wasm/Cargo.toml): wasm/pkg-logbook, the reads and signs only (--no-default-features
#                                     --features rest), which the app imports as "geocache-client" for its first
#                                     entries, and wasm/pkg-live, the standalone realtime client only
#                                     (--no-default-features --features realtime), which the app imports lazily as
#                                     "geocache-live" once those entries are painted; and wasm/pkg-owner, the owner
#                                     page's (--no-default-features --features auth,realtime: no storage or functions).
#   bash scripts/build-wasm.sh bench  wasm/pkg-bench: the npm package plus `parseEntriesForBenchmark` (--features
#                                     bench), for `npm run bench` only.
# Any further arguments go to wasm-pack.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib/toolchain.sh
source "$repo_root/scripts/lib/toolchain.sh"
cd "$repo_root"

# Two builds at once (npm start beside npm run preview, or two test suites) would write the same folders, and one's
# wasm-opt would find the other's files gone: the second waits here, then finds the packages built.
mkdir -p target
exec {build_lock}>target/.build-wasm.lock
if command -v flock >/dev/null; then
  flock "$build_lock"
fi

use_wasm_toolchain
# wasm-pack runs the first wasm-opt on PATH: the npm binaryen one, never Debian's (it corrupts wasm-bindgen output).
PATH="$repo_root/node_modules/.bin:$PATH"
build=(wasm-pack build wasm --release --target bundler --weak-refs --out-name geocache_client)
# Panic locations name their source files: without this the .wasm carries this machine's paths to the crates
# registry and the checkout, bytes every visit downloads that say nothing to anyone else. Appended to the caller's
# flags (a RUSTFLAGS of their own still applies).
remap=("--remap-path-prefix=$repo_root=geocache")
for registry in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
  remap+=("--remap-path-prefix=${registry%/}=crates")
done
RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }${remap[*]}"
export RUSTFLAGS

if [[ "${1:-}" == bench ]]; then
  shift
  mode=bench
  dirs=(wasm/pkg-bench)
else
  mode=page
  dirs=(wasm/pkg wasm/pkg-logbook wasm/pkg-live wasm/pkg-owner)
fi
# What the packages are built from: when none of it changed since they were built, they are left as they are, so a
# second `npm start` takes seconds and never rewrites files a running dev server or test is reading.
inputs_digest() {
  {
    find core wasm/src wasm/Cargo.toml Cargo.toml Cargo.lock scripts/build-wasm.sh scripts/lib/npm-package.mjs \
      -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum --
    rustc --version
    wasm-pack --version
    printf 'args:%s\n' "$*"
    env | grep -E '^(RUSTFLAGS|CARGO_ENCODED_RUSTFLAGS|RUSTUP_TOOLCHAIN)=' | LC_ALL=C sort || true
  } | sha256sum | cut -d' ' -f1
}
stamp_name=.geocache-inputs
digest="$(inputs_digest "$mode" "$@")"
up_to_date=1
for dir in "${dirs[@]}"; do
  [[ "$(cat "$dir/$stamp_name" 2>/dev/null)" == "$digest" ]] || up_to_date=
done
if [[ -n "$up_to_date" ]]; then
  echo "wasm packages are up to date (${dirs[*]})"
  exit 0
fi
# A build that stops half-way leaves no stamp behind, so the next one starts over.
for dir in "${dirs[@]}"; do
  rm -f "$dir/$stamp_name"
done

if [[ "$mode" == bench ]]; then
  "${build[@]}" --out-dir pkg-bench --features bench "$@"
else
  "${build[@]}" "$@"
  node scripts/lib/npm-package.mjs wasm/pkg
  "${build[@]}" --out-dir pkg-logbook --no-default-features --features rest "$@"
  # Its own out-name, so the page's two .wasm assets are told apart by name (geocache_live_bg-*.wasm).
  "${build[@]/geocache_client/geocache_live}" --out-dir pkg-live --no-default-features --features realtime "$@"
  # The owner page's own build (owner.html): sign-in, MFA and the owner's calls, with a channel for the arrivals.
  "${build[@]/geocache_client/geocache_owner}" --out-dir pkg-owner --no-default-features --features auth,realtime "$@"
fi
for dir in "${dirs[@]}"; do
  printf '%s\n' "$digest" >"$dir/$stamp_name"
done
