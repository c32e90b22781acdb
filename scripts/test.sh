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

known_steps=(fmt clippy clippy-wasm cargo-test build-wasm typecheck eslint vitest build-emulator wasm-browser conformance e2e)
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
trap stop_test_emulator EXIT

# The wasm auth tests (wasm/tests/support) expect short MFA challenges and a cheap password hash.
WASM_TEST_EMULATOR_FLAGS=(--mfa-challenge-expiry 3 --password-hash-cost 4)

start_test_emulator() {
  emulator_log="$(mktemp)"
  target/debug/geocache-emulator --port 0 --db :memory: "${WASM_TEST_EMULATOR_FLAGS[@]}" >"$emulator_log" 2>&1 &
  emulator_pid=$!
  local tries=0
  EMULATOR_URL=
  EMULATOR_ANON_KEY=
  EMULATOR_SERVICE_ROLE_KEY=
  while [[ -z "$EMULATOR_URL" || -z "$EMULATOR_ANON_KEY" || -z "$EMULATOR_SERVICE_ROLE_KEY" ]]; do
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
  done
  export EMULATOR_URL EMULATOR_ANON_KEY EMULATOR_SERVICE_ROLE_KEY
  printf 'emulator for the browser tests: %s\n' "$EMULATOR_URL"
}

wasm_browser_tests() {
  start_test_emulator || return 1
  local status=0
  (
    use_wasm_toolchain
    WASM_BINDGEN_TEST_TIMEOUT=60 wasm-pack test --headless --chrome wasm
  ) || status=$?
  if [[ $status -ne 0 ]]; then
    printf 'Emulator output:\n' >&2
    cat "$emulator_log" >&2
  fi
  stop_test_emulator
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
step build-emulator "Emulator binary (cargo build -p geocache-emulator)" cargo build -p geocache-emulator
step wasm-browser "wasm-bindgen tests in headless Chromium against the emulator" wasm_browser_tests
step conformance "Emulator conformance with @supabase/supabase-js (node --test)" \
  node --experimental-websocket --test tests/conformance/
step e2e "End-to-end (Playwright, Chromium)" node_modules/.bin/playwright test --config tests/playwright.config.ts

printf '\n%sAll %d steps passed in %dm%02ds.%s\n' "$green" "$steps_run" "$((SECONDS / 60))" "$((SECONDS % 60))" "$reset"
