#!/usr/bin/env bash
# Installs what `npm start` and `npm test` need and is missing, and nothing else. Every step checks before it acts,
# so a second run finishes in seconds. Where rustup cannot provide the wasm32 target, scripts/setup-wasm-debian.sh
# builds it from Debian's packages.
#
# Environment:
#   GEOCACHE_FORCE_DEBIAN_WASM=1  use Debian's rustc-web for wasm even where rustup has the wasm32 target
#   CHROMIUM_PATH, CHROMEDRIVER   a Chromium and ChromeDriver other than the ones on PATH
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib/toolchain.sh
source "$repo_root/scripts/lib/toolchain.sh"
cd "$repo_root"

WASM_PACK_VERSION=0.15.1
NODE_MIN_VERSION=20.19.0

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

ensure_wasm_target() {
  local forced="${GEOCACHE_FORCE_DEBIAN_WASM:-}"
  if [[ "$forced" != 1 ]] && wasm_std_present; then
    ok "wasm32 target (rustup)"
  elif wasm_std_present "$DEBIAN_WASM_TOOLCHAIN"; then
    ok "wasm32 target (Debian rustc-web; wasm builds use RUSTUP_TOOLCHAIN=$DEBIAN_WASM_TOOLCHAIN)"
  elif [[ "$forced" == 1 ]]; then
    bash scripts/setup-wasm-debian.sh
  else
    if have rustup; then
      installing "wasm32 target (rustup target add $WASM_TARGET, up to 90 s)"
      if timeout 90 rustup target add "$WASM_TARGET" && wasm_std_present; then
        ok "wasm32 target (rustup)"
        return
      fi
      warn "rustup could not install the $WASM_TARGET target; trying Debian's packages instead."
    fi
    bash scripts/setup-wasm-debian.sh
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
  # No --locked: the registry lacks one of wasm-bindgen-cli's pinned transitive versions.
  cargo install "$crate" --version "$version"
  [[ "$("$binary" --version 2>/dev/null | awk '{ print $2 }')" == "$version" ]] ||
    die "$crate $version was installed but '$binary --version' does not report it: is $cargo_bin first on PATH?"
  ok "$binary $version"
}

# Chromium and its ChromeDriver: CHROMIUM_PATH and CHROMEDRIVER when set, else the ones on PATH (installed with
# apt-get where neither is set nor found).
chromium_on_path() { command -v chromium || command -v chromium-browser || command -v google-chrome; }
ensure_chromium() {
  local chromium="${CHROMIUM_PATH:-$(chromium_on_path || true)}" driver="${CHROMEDRIVER:-$(command -v chromedriver || true)}"
  if [[ -n "$chromium" && -x "$chromium" && -n "$driver" && -x "$driver" ]]; then
    ok "chromium and chromedriver ($chromium, $driver)"
    return
  fi
  if have apt-get && [[ -z "${CHROMIUM_PATH:-}" && -z "${CHROMEDRIVER:-}" ]]; then
    installing "chromium chromium-driver (apt-get)"
    apt_install chromium chromium-driver
    chromium="$(chromium_on_path || true)" driver="$(command -v chromedriver || true)"
    [[ -n "$chromium" && -n "$driver" ]] || die "apt-get installed chromium but chromium or chromedriver is still not on PATH."
    ok "chromium and chromedriver ($chromium, $driver)"
    return
  fi
  die "Chromium (${CHROMIUM_PATH:-chromium on PATH}) or ChromeDriver (${CHROMEDRIVER:-chromedriver on PATH}) is missing. Install both (same major version; on Debian 'apt-get install chromium chromium-driver'), or set CHROMIUM_PATH and CHROMEDRIVER to where they are."
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
  # Debian's binaryen (version 108) corrupts wasm-bindgen output.
  local system_wasm_opt
  system_wasm_opt="$(command -v wasm-opt || true)"
  if [[ -n "$system_wasm_opt" && "$system_wasm_opt" != "$repo_root/node_modules/.bin/wasm-opt" ]]; then
    warn "$system_wasm_opt is on PATH (Debian's binaryen corrupts wasm-bindgen output). Our build puts node_modules/.bin first on PATH, but other wasm-pack runs would pick it up; consider 'apt-get remove binaryen'."
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
