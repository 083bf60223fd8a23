#!/usr/bin/env bash
# Runs every coverage-guided target for SECONDS each (default 300), seeded
# from the repository's corpora, and prints one line per target: executions,
# coverage (libFuzzer's cov and ft) and corpus size at the end, and whether it
# crashed. Usage: fuzz/run-all.sh [SECONDS] [TARGET...]
# Needs `cargo install cargo-fuzz` and a nightly toolchain. Builds the targets
# once (CAIRN_FUZZ_NO_BUILD=1 runs the binaries already built), then runs each
# binary itself. Scratch corpora go to fuzz/corpus/, crashes to
# fuzz/artifacts/, logs to fuzz/logs/ (all ignored by git).
set -u
cd "$(dirname "$0")"
seconds=${1:-300}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
if [ "${CAIRN_FUZZ_NO_BUILD:-0}" != 1 ]; then
    cargo +nightly fuzz build -s none >/dev/null || exit 1
fi
bin=target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release

seed_dir() {
    case "$1" in
        cbor) echo ../server/tests/fuzz_corpus/json ;;
        patch_target) echo ;;
        engine_*) echo ;;
        *) echo "../server/tests/fuzz_corpus/$1" ;;
    esac
}

printf '%-20s %12s %8s %8s %8s  %s\n' target executions cov ft corpus outcome
failed=0
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target" "artifacts/$target" logs
    seeds=$(seed_dir "$target")
    if [ -n "$seeds" ] && [ -d "$seeds" ]; then
        cp -n "$seeds"/* "corpus/$target/" 2>/dev/null
    fi
    log="logs/$target.log"
    if "$bin/$target" -artifact_prefix="artifacts/$target/" \
        -max_total_time="$seconds" -print_final_stats=1 "corpus/$target" >"$log" 2>&1; then
        outcome=ok
    else
        outcome="CRASH (see $log and artifacts/$target/)"
        failed=1
    fi
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*$')
    ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*$')
    files=$(find "corpus/$target" -type f | wc -l)
    printf '%-20s %12s %8s %8s %8s  %s\n' "$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$files" "$outcome"
done
exit $failed
