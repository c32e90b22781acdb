#!/usr/bin/env bash
# Installs what `npm start` and `npm test` need and is missing, and nothing else. Every step checks before it acts,
# so a second run finishes in seconds. Reference: docs in /work/shared/reference/toolchain.md (the verified recipe).
#
# Environment:
#   GEOCACHE_FORCE_DEBIAN_WASM=1  use Debian's rustc-web for wasm even where rustup has the wasm32 target
#   CHROMIUM_PATH, CHROMEDRIVER   a Chromium and ChromeDriver elsewhere than /usr/bin
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib/toolchain.sh
source "$repo_root/scripts/lib/toolchain.sh"
cd "$repo_root"

WASM_PACK_VERSION=0.15.1
NODE_MIN_VERSION=20.19.0
CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"

ok() { printf 'ok: %s\n' "$*"; }
installing() { printf 'installing: %s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }

version_at_least() { # version_at_least HAVE WANT
  [[ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" == "$2" ]]
}

check_prerequisites() {
  { have cargo && have rustc; } ||
    die "Rust is not installed. Install it with rustup (https://rustup.rs), or on Debian with 'apt-get install rustc-web cargo-web', then run this again."
  { have node && have npm; } ||
    die "Node.js $NODE_MIN_VERSION or newer with npm is required (https://nodejs.org, or your package manager)."
  local node_version
  node_version="$(node --version)"
  version_at_least "${node_version#v}" "$NODE_MIN_VERSION" ||
    die "Node.js $node_version is too old: $NODE_MIN_VERSION or newer is required."
  { have awk && have sort; } || die "awk and sort are required."
}

# Route B (toolchain.md §1): Debian's rustc-web, with the wasm32 std built once from Debian's std sources.
install_debian_wasm_std() {
  have apt-get || die "rustup cannot provide the $WASM_TARGET target and apt-get is not available. Install the target (rustup target add $WASM_TARGET) or a Rust toolchain that ships it, then run this again."
  have rustup || die "the Debian wasm route links Debian's compiler into rustup, but rustup is missing. Install rustup (https://rustup.rs) or the $WASM_TARGET std for your compiler."
  installing "wasm32 std from Debian packages (rustc-web cargo-web rust-web-src lld-22; about 2 minutes)"
  # rust-web-clippy: `npm test` lints the wasm crate for wasm32 with this toolchain's clippy.
  apt_install rustc-web cargo-web rust-web-src lld-22 rust-web-clippy

  local scratch
  scratch="$(mktemp -d)"
  # shellcheck disable=SC2064 # expand now: the variable is local
  trap "rm -rf '$scratch'" RETURN
  mkdir -p "$scratch/src"
  printf '[package]\nname = "wasm_std_build"\nversion = "0.0.0"\nedition = "2021"\n\n[workspace]\n' >"$scratch/Cargo.toml"
  : >"$scratch/src/lib.rs"
  installing "building the wasm32 standard library with Debian's compiler (35-60 s)"
  # -Cembed-bitcode=yes: crates built with lto = true fail to link against a std without bitcode.
  (cd "$scratch" && env -u RUSTUP_TOOLCHAIN RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS=-Cembed-bitcode=yes \
    /usr/bin/cargo build --release -Zbuild-std=std,panic_abort,panic_unwind,proc_macro,test --target "$WASM_TARGET")

  local sysroot_lib=/usr/lib/rustlib/$WASM_TARGET/lib
  local deps="$scratch/target/$WASM_TARGET/release/deps"
  # Empty first: two copies of a crate give error E0464. dpkg does not own these files (rebuild after upgrading
  # rustc-web: error E0514 says so).
  rm -rf "$sysroot_lib"
  mkdir -p "$sysroot_lib"
  local file
  for file in "$deps"/lib*.rlib "$deps"/lib*.rmeta; do
    [[ "$(basename "$file")" == libwasm_std_build-* ]] && continue
    cp "$file" "$sysroot_lib/"
  done

  if ! rustup toolchain list | grep -q "^$DEBIAN_WASM_TOOLCHAIN"; then
    rustup toolchain link "$DEBIAN_WASM_TOOLCHAIN" /usr
  fi
  wasm_std_present "$DEBIAN_WASM_TOOLCHAIN" || die "the wasm32 std was built but $DEBIAN_WASM_TOOLCHAIN still lacks it in $sysroot_lib."
  ok "wasm32 target (Debian rustc-web; wasm builds use RUSTUP_TOOLCHAIN=$DEBIAN_WASM_TOOLCHAIN)"
}

ensure_wasm_target() {
  local forced="${GEOCACHE_FORCE_DEBIAN_WASM:-}"
  if [[ "$forced" != 1 ]] && wasm_std_present; then
    ok "wasm32 target (rustup)"
  elif wasm_std_present "$DEBIAN_WASM_TOOLCHAIN"; then
    ok "wasm32 target (Debian rustc-web; wasm builds use RUSTUP_TOOLCHAIN=$DEBIAN_WASM_TOOLCHAIN)"
  elif [[ "$forced" == 1 ]]; then
    install_debian_wasm_std
  else
    if have rustup; then
      installing "wasm32 target (rustup target add $WASM_TARGET, up to 90 s)"
      if timeout 90 rustup target add "$WASM_TARGET" && wasm_std_present; then
        ok "wasm32 target (rustup)"
        return
      fi
      warn "rustup could not install the $WASM_TARGET target; trying Debian's packages instead."
    fi
    install_debian_wasm_std
  fi
}

# The wasm-bindgen version Cargo.lock resolved; before the lockfile has it, the wasm crate's exact pin.
wanted_wasm_bindgen_version() {
  local version
  version="$(awk '
    /^\[\[package\]\]/ { in_pkg = 0 }
    /^name = "wasm-bindgen"$/ { in_pkg = 1; next }
    in_pkg && /^version = / { gsub(/"/, "", $3); print $3; exit }
  ' Cargo.lock 2>/dev/null || true)"
  if [[ -z "$version" ]]; then
    version="$(sed -nE 's/^wasm-bindgen[[:space:]]*=[[:space:]]*(\{[^}]*version[[:space:]]*=[[:space:]]*)?"=?([0-9]+\.[0-9]+\.[0-9]+)".*/\2/p' wasm/Cargo.toml 2>/dev/null | head -n1)"
  fi
  [[ -n "$version" ]] || die "cannot tell which wasm-bindgen version to install: neither Cargo.lock nor wasm/Cargo.toml names one."
  printf '%s\n' "$version"
}

# cargo_tool BINARY CRATE VERSION: cargo install CRATE@VERSION unless `BINARY --version` already reports it.
cargo_tool() {
  local binary=$1 crate=$2 version=$3 current=
  if have "$binary"; then
    current="$("$binary" --version 2>/dev/null | awk '{ print $2 }')" || current=
  fi
  if [[ "$current" == "$version" ]]; then
    ok "$binary $version"
    return
  fi
  installing "$crate $version (cargo install, 2-3 minutes)${current:+; found $current}"
  # No --locked: the registry lacks one of wasm-bindgen-cli's pinned transitive versions (toolchain.md §2).
  cargo install "$crate" --version "$version"
  [[ "$("$binary" --version 2>/dev/null | awk '{ print $2 }')" == "$version" ]] ||
    die "$crate $version was installed but '$binary --version' does not report it: is $cargo_bin first on PATH?"
  ok "$binary $version"
}

ensure_chromium() {
  if [[ -x "$CHROMIUM_PATH" && -x "$CHROMEDRIVER" ]]; then
    ok "chromium and chromedriver ($CHROMIUM_PATH, $CHROMEDRIVER)"
    return
  fi
  if have apt-get && [[ "$CHROMIUM_PATH" == /usr/bin/chromium && "$CHROMEDRIVER" == /usr/bin/chromedriver ]]; then
    installing "chromium chromium-driver (apt-get)"
    apt_install chromium chromium-driver
    [[ -x "$CHROMIUM_PATH" && -x "$CHROMEDRIVER" ]] || die "apt-get installed chromium but $CHROMIUM_PATH or $CHROMEDRIVER is still missing."
    ok "chromium and chromedriver ($CHROMIUM_PATH, $CHROMEDRIVER)"
    return
  fi
  die "Chromium ($CHROMIUM_PATH) or ChromeDriver ($CHROMEDRIVER) is missing. Install both (same major version; on Debian 'apt-get install chromium chromium-driver'), or set CHROMIUM_PATH and CHROMEDRIVER to where they are."
}

ensure_npm_dependencies() {
  local reason
  if reason="$(node scripts/lib/npm-in-sync.mjs)"; then
    ok "npm dependencies match package-lock.json"
  else
    installing "npm dependencies (npm ci: $reason)"
    npm ci
    ok "npm dependencies match package-lock.json"
  fi
  [[ -x node_modules/.bin/wasm-opt ]] || die "node_modules/.bin/wasm-opt (npm package binaryen) is missing after npm ci."
  if [[ -e /usr/bin/wasm-opt ]]; then
    warn "/usr/bin/wasm-opt exists (Debian's binaryen corrupts wasm-bindgen output). Our build puts node_modules/.bin first on PATH, but other wasm-pack runs would pick it up; consider 'apt-get remove binaryen'."
  fi
}

ensure_rust_components() {
  if cargo fmt --version >/dev/null 2>&1 && cargo clippy --version >/dev/null 2>&1; then
    ok "rustfmt and clippy"
    return
  fi
  have rustup || die "cargo fmt or cargo clippy is missing: install rustfmt and clippy for your Rust toolchain."
  installing "rustfmt and clippy (rustup component add)"
  timeout 90 rustup component add rustfmt clippy || die "rustup could not install rustfmt and clippy."
  ok "rustfmt and clippy"
}

check_prerequisites
ensure_wasm_target
ensure_rust_components
cargo_tool wasm-bindgen wasm-bindgen-cli "$(wanted_wasm_bindgen_version)"
cargo_tool wasm-pack wasm-pack "$WASM_PACK_VERSION"
ensure_chromium
ensure_npm_dependencies
printf 'setup: everything is in place (%ss)\n' "$SECONDS"
