#!/usr/bin/env bash
# Runs a command with every core kept busy beside it: one `python -c "while True: pass"` per core
# (BUSY_LOOPS overrides the count). The loops are killed when the command ends, fails, or is
# interrupted; the command's exit status is this script's.
set -u
python_bin="${PYTHON:-python3}"
loops="${BUSY_LOOPS:-$(nproc)}"
pids=()
command_pid=""
cleanup() {
    if [ -n "$command_pid" ]; then
        kill "$command_pid" 2>/dev/null
        wait "$command_pid" 2>/dev/null
        command_pid=""
    fi
    if ((${#pids[@]})); then
        kill "${pids[@]}" 2>/dev/null
        wait "${pids[@]}" 2>/dev/null
    fi
    pids=()
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
for _ in $(seq "$loops"); do
    "$python_bin" -c "while True: pass" &
    pids+=("$!")
done
echo "busy.sh: ${#pids[@]} busy loops (pids ${pids[*]}) beside: $*" >&2
start=$SECONDS
"$@" &  # in the background, so a signal to this script reaches the traps at once
command_pid=$!
wait "$command_pid"
status=$?
command_pid=""
echo "busy.sh: exit $status after $((SECONDS - start)) s" >&2
exit "$status"
