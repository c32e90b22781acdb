# shellcheck shell=bash
# Helpers shared by setup.sh, setup-wasm-debian.sh and build-wasm.sh (sourced, not run); scripts/lib/toolchain.mjs
# is the same toolchain choice for the Node scripts.
# shellcheck disable=SC2034 # cargo_bin, WASM_TARGET and friends are used by the scripts that source this file

# Tools that `cargo install` puts in ~/.cargo/bin (wasm-bindgen, wasm-pack) must win over anything else on PATH.
cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
if [[ -d "$cargo_bin" && ":$PATH:" != *":$cargo_bin:"* ]]; then
  PATH="$cargo_bin:$PATH"
fi
export PATH

WASM_TARGET=wasm32-unknown-unknown
# The toolchain name scripts/setup-wasm-debian.sh links Debian's rustc-web under when rustup cannot provide the wasm32 std.
DEBIAN_WASM_TOOLCHAIN=debian-web

have() { command -v "$1" >/dev/null 2>&1; }

die() {
  printf 'error: %s\n' "$*" >&2
  exit 1
}

apt_updated=
# apt-get install, as root or through sudo; `apt-get update` once, and only when something must be installed.
apt_install() {
  local sudo=()
  if [[ $EUID -ne 0 ]]; then
    have sudo || die "installing $* needs root: run this script as root or install sudo."
    sudo=(sudo)
  fi
  if [[ -z "$apt_updated" ]]; then
    "${sudo[@]}" apt-get update || die "apt-get update failed (see above); cannot install $*."
    apt_updated=1
  fi
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "$@" || die "apt-get install $* failed (see above)."
}

# Whether the given rustup toolchain (default: the active one) has a wasm32 standard library.
wasm_std_present() {
  local libdir
  if [[ $# -gt 0 ]]; then
    libdir="$(RUSTUP_TOOLCHAIN="$1" rustc --print target-libdir --target "$WASM_TARGET" 2>/dev/null)" || return 1
  else
    libdir="$(rustc --print target-libdir --target "$WASM_TARGET" 2>/dev/null)" || return 1
  fi
  compgen -G "$libdir/libstd-*.rlib" >/dev/null
}

# Exports RUSTUP_TOOLCHAIN=debian-web when wasm builds need Debian's compiler: rustup's toolchain lacks the
# wasm32 std (or GEOCACHE_FORCE_DEBIAN_WASM=1) and the linked debian-web toolchain has it. Host builds never
# use it: they are about 2.5 times faster on rustup's stable compiler.
use_wasm_toolchain() {
  if [[ "${GEOCACHE_FORCE_DEBIAN_WASM:-}" != 1 ]] && wasm_std_present; then
    return 0
  fi
  if wasm_std_present "$DEBIAN_WASM_TOOLCHAIN"; then
    export RUSTUP_TOOLCHAIN="$DEBIAN_WASM_TOOLCHAIN"
    return 0
  fi
  die "no Rust toolchain with the $WASM_TARGET standard library was found: run scripts/setup.sh first."
}
