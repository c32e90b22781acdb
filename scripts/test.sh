#!/usr/bin/env bash
# `npm test`: every check the project has, in order, failing fast with a banner naming the step.
# `bash scripts/test.sh STEP...` runs only the named steps (after setup), e.g. `bash scripts/test.sh e2e`.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source-path=SCRIPTDIR source=lib/toolchain.sh
source "$repo_root/scripts/lib/toolchain.sh"
cd "$repo_root"

export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-always}"

if [[ -t 1 ]]; then
  bold=$'\033[1m' red=$'\033[1;31m' green=$'\033[32m' reset=$'\033[0m'
else
  bold='' red='' green='' reset=''
fi

known_steps=(fmt clippy clippy-wasm cargo-test build-wasm typecheck eslint vitest bench-lib build-emulator wasm-browser conformance postgres production-build e2e)
selected=("$@")
for name in "${selected[@]}"; do
  [[ " ${known_steps[*]} " == *" $name "* ]] || die "unknown step '$name'; steps: ${known_steps[*]}"
done
steps_run=0

wanted() {
  [[ ${#selected[@]} -eq 0 ]] && return 0
  local name
  for name in "${selected[@]}"; do [[ "$name" == "$1" ]] && return 0; done
  return 1
}

# step ID TITLE COMMAND...: runs the command with its output unfiltered; stops everything on failure.
step() {
  local id=$1 title=$2
  shift 2
  [[ "$id" == setup ]] || wanted "$id" || return 0
  steps_run=$((steps_run + 1))
  printf '\n%s==> %s [%s]%s\n' "$bold" "$title" "$id" "$reset"
  local started=$SECONDS status=0
  "$@" || status=$?
  if [[ $status -ne 0 ]]; then
    printf '\n%s!!! FAILED: %s [%s] (exit code %d, after %ss)%s\n' "$red" "$title" "$id" "$status" "$((SECONDS - started))" "$reset" >&2
    exit "$status"
  fi
  printf '%s<== ok: %s (%ss)%s\n' "$green" "$title" "$((SECONDS - started))" "$reset"
}

clippy_wasm() (
  use_wasm_toolchain
  cargo clippy -p geocache-client --target "$WASM_TARGET" --all-targets -- -D warnings
  # The page's build (scripts/build-wasm.sh: wasm/pkg-logbook) leaves out the auth client.
  cargo clippy -p geocache-client --target "$WASM_TARGET" --no-default-features --all-targets -- -D warnings
)

# One emulator for the wasm-bindgen browser tests; stopped by the EXIT trap even when the tests fail.
emulator_pid=
emulator_log=
stop_test_emulator() {
  if [[ -n "$emulator_pid" ]] && kill -0 "$emulator_pid" 2>/dev/null; then
    kill -TERM "$emulator_pid" 2>/dev/null || true
    local tries=0
    while kill -0 "$emulator_pid" 2>/dev/null && [[ $tries -lt 50 ]]; do
      sleep 0.1
      tries=$((tries + 1))
    done
    kill -KILL "$emulator_pid" 2>/dev/null || true
  fi
  emulator_pid=
  if [[ -n "$emulator_log" ]]; then rm -f "$emulator_log"; fi
  emulator_log=
}

# The PostgreSQL tests create their throwaway clusters (scripts/lib/postgres.mjs) under one scratch directory, so
# whatever a crashed test leaves behind is found and removed here, and nothing else is touched.
pg_scratch=
stop_test_clusters() {
  [[ -n "$pg_scratch" && -d "$pg_scratch" ]] || return 0
  local pid_file data_dir pid tries
  for pid_file in "$pg_scratch"/geocache-pg-*/data/postmaster.pid; do
    [[ -f "$pid_file" ]] || continue
    data_dir="$(dirname "$pid_file")"
    pid="$(head -n1 "$pid_file")"
    # Only a server still running on this very directory (not a recycled process id).
    if [[ "$pid" =~ ^[0-9]+$ ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$data_dir"; then
      kill -INT "$pid" 2>/dev/null || true
      tries=0
      while kill -0 "$pid" 2>/dev/null && [[ $tries -lt 100 ]]; do
        sleep 0.1
        tries=$((tries + 1))
      done
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -rf "$pg_scratch"
  pg_scratch=
}

cleanup() {
  stop_test_emulator
  stop_test_clusters
}
trap cleanup EXIT

# The wasm auth tests (wasm/tests/support) expect short MFA challenges and a cheap password hash.
WASM_TEST_EMULATOR_FLAGS=(--mfa-challenge-expiry 3 --password-hash-cost 4)

start_test_emulator() {
  emulator_log="$(mktemp)"
  # The row cap and other shared settings come from the Supabase CLI's config, as for `npm start`.
  target/debug/geocache-emulator --port 0 --db :memory: --config "$repo_root/supabase/config.toml" \
    "${WASM_TEST_EMULATOR_FLAGS[@]}" >"$emulator_log" 2>&1 &
  emulator_pid=$!
  local tries=0
  EMULATOR_URL=
  EMULATOR_ANON_KEY=
  EMULATOR_SERVICE_ROLE_KEY=
  EMULATOR_PUBLISHABLE_KEY=
  EMULATOR_SECRET_KEY=
  while [[ -z "$EMULATOR_URL" || -z "$EMULATOR_ANON_KEY" || -z "$EMULATOR_SERVICE_ROLE_KEY" ||
    -z "$EMULATOR_PUBLISHABLE_KEY" || -z "$EMULATOR_SECRET_KEY" ]]; do
    if ! kill -0 "$emulator_pid" 2>/dev/null || [[ $tries -ge 300 ]]; then
      printf 'The emulator did not print its API URL and keys. Its output:\n' >&2
      cat "$emulator_log" >&2
      return 1
    fi
    sleep 0.1
    tries=$((tries + 1))
    EMULATOR_URL="$(sed -n 's/^API URL: \([^[:space:]]*\).*/\1/p' "$emulator_log")"
    EMULATOR_ANON_KEY="$(sed -n 's/^anon key: \([^[:space:]]*\).*/\1/p' "$emulator_log")"
    EMULATOR_SERVICE_ROLE_KEY="$(sed -n 's/^service_role key: \([^[:space:]]*\).*/\1/p' "$emulator_log")"
    EMULATOR_PUBLISHABLE_KEY="$(sed -n 's/^Publishable key: \(sb_publishable_[^[:space:]]*\).*/\1/p' "$emulator_log")"
    EMULATOR_SECRET_KEY="$(sed -n 's/^Secret key: \(sb_secret_[^[:space:]]*\).*/\1/p' "$emulator_log")"
  done
  export EMULATOR_URL EMULATOR_ANON_KEY EMULATOR_SERVICE_ROLE_KEY EMULATOR_PUBLISHABLE_KEY EMULATOR_SECRET_KEY
  printf 'emulator for the browser tests: %s\n' "$EMULATOR_URL"
}

wasm_browser_tests() {
  start_test_emulator || return 1
  local status=0
  (
    use_wasm_toolchain
    WASM_BINDGEN_TEST_TIMEOUT=60 wasm-pack test --headless --chrome wasm
    # The page's own build (wasm/pkg-logbook): no auth client, so only the logbook tests compile in.
    WASM_BINDGEN_TEST_TIMEOUT=60 wasm-pack test --headless --chrome wasm --no-default-features
  ) || status=$?
  if [[ $status -ne 0 ]]; then
    printf 'Emulator output:\n' >&2
    cat "$emulator_log" >&2
  fi
  stop_test_emulator
  return "$status"
}

# Debian's PostgreSQL server binaries, installed only where no initdb exists (POSTGRES_BINDIR: elsewhere).
ensure_postgres_server() {
  if [[ -n "${POSTGRES_BINDIR:-}" ]] || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
    return 0
  fi
  have apt-get || die "the PostgreSQL tests need PostgreSQL's server (initdb, postgres): install it, or set POSTGRES_BINDIR to its bin directory."
  printf 'installing: postgresql (apt-get; the tests run their own throwaway cluster)\n'
  apt_install postgresql
}

postgres_tests() {
  ensure_postgres_server
  # In /tmp, not $TMPDIR: the unprivileged user the clusters run as must reach their directories (each cluster's
  # own directory inside is private to that user).
  pg_scratch="$(mktemp -d /tmp/geocache-pg-scratch.XXXXXX)"
  chmod 755 "$pg_scratch"
  local status=0
  GEOCACHE_PG_SCRATCH="$pg_scratch" node --test --test-timeout=180000 tests/postgres/ || status=$?
  stop_test_clusters
  return "$status"
}

step setup "Toolchain and dependencies (scripts/setup.sh)" bash scripts/setup.sh
step fmt "Rust formatting (cargo fmt --check)" cargo fmt --all --check
step clippy "Rust lints, host (cargo clippy -D warnings)" cargo clippy --workspace --all-targets -- -D warnings
step clippy-wasm "Rust lints, wasm32 (cargo clippy -p geocache-client)" clippy_wasm
step cargo-test "Rust tests: core, wasm (host), emulator (cargo test)" cargo test --workspace
step build-wasm "wasm package (scripts/build-wasm.sh)" bash scripts/build-wasm.sh
step typecheck "TypeScript: app, tests, generated wasm/pkg types (tsc --noEmit)" npm run typecheck
step eslint "ESLint" node_modules/.bin/eslint .
step vitest "App component tests (Vitest)" npm test -w app
# The benchmark's harness (statistics, targets, report); the measurements themselves are `npm run bench`.
step bench-lib "Benchmark harness unit tests (node --test bench/lib)" node --test bench/lib/
step build-emulator "Emulator binary (cargo build -p geocache-emulator)" cargo build -p geocache-emulator
step wasm-browser "wasm-bindgen tests in headless Chromium against the emulator" wasm_browser_tests
step conformance "Emulator conformance with @supabase/supabase-js (node --test)" \
  node --experimental-websocket --test tests/conformance/
step postgres "Migration on PostgreSQL: roles, index, parity with the emulator (node --test)" postgres_tests
step production-build "Production build: npm run build output, CSP, lazy wasm (node --test)" \
  node --test --test-timeout=300000 tests/build/
step e2e "End-to-end (Playwright, Chromium; dev server and production build)" node_modules/.bin/playwright test --config tests/playwright.config.ts

printf '\n%sAll %d steps passed in %dm%02ds.%s\n' "$green" "$steps_run" "$((SECONDS / 60))" "$((SECONDS % 60))" "$reset"
