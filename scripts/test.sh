#!/usr/bin/env bash
# `npm test` is scripts/test.mjs; this name stays for those who know it: `bash scripts/test.sh [STEP...]`.
exec node "$(dirname "${BASH_SOURCE[0]}")/test.mjs" "$@"
