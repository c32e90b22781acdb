#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 60): bash fuzz/run.sh [SECONDS]
#
# Works with the stable toolchain: cargo-fuzz passes nightly-only flags (-Zsanitizer=address),
# which stable rustc accepts under RUSTC_BOOTSTRAP=1. Installs cargo-fuzz when it is missing.
# New interesting inputs go to fuzz/corpus/<target> (not committed). A crash is copied into
# fuzz/regressions/<target>/, which `cargo test -p geocache-emulator` replays
# (emulator/tests/api/fuzz_entry_points.rs), and the script exits non-zero.
set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 1 ]; then
  echo "usage: bash fuzz/run.sh [SECONDS per target]" >&2
  exit 2
fi
cd "$(dirname "${BASH_SOURCE[0]}")"
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing: cargo-fuzz (cargo install cargo-fuzz --locked, about a minute)"
  cargo install cargo-fuzz --locked
fi
export RUSTC_BOOTSTRAP=1

targets=(query_string jwt entry_list)
failed=()
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target" "artifacts/$target"
  echo "== fuzzing $target for ${seconds}s"
  if ! cargo fuzz run "$target" "corpus/$target" "regressions/$target" -- \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1; then
    failed+=("$target")
    for artifact in "artifacts/$target"/*; do
      [ -f "$artifact" ] || continue
      kept="regressions/$target/$(basename "$artifact")"
      cp "$artifact" "$kept"
      echo "crash kept as fuzz/$kept: fix it, then \`cargo test -p geocache-emulator\` replays it" >&2
    done
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo "crashes in: ${failed[*]}" >&2
  exit 1
fi
echo "no crashes in ${targets[*]} (${seconds}s each)"
