#!/usr/bin/env bash
# The wasm32 standard library from Debian's packages alone, for machines where rustup cannot download the
# wasm32-unknown-unknown target: Debian's rustc-web compiler builds the standard library once from Debian's own std
# sources, installs it into that compiler's sysroot, and is linked into rustup as the `debian-web` toolchain, which
# wasm builds select (scripts/lib/toolchain.sh) while host builds stay on rustup's faster stable compiler.
# Run by scripts/setup.sh when needed; safe to run again (for example after upgrading rustc-web: error E0514).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib/toolchain.sh
source "$repo_root/scripts/lib/toolchain.sh"

ok() { printf 'ok: %s\n' "$*"; }
installing() { printf 'installing: %s\n' "$*"; }

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

install_debian_wasm_std
