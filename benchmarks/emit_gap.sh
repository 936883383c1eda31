#!/usr/bin/env bash
# The emitted routine against the kernel it came from (issue 51's 3% rule), paired in one race:
# for each stream of a benchmarks/tune_streams.sh folder, the tune file emitted again by this kex
# (kex emit --format gas --tune), built as a shared object (lib/new: its symbol an indirect
# function since the CPU check moved into a resolver) and loaded as object code (asm/newasm: the
# entry without the check, SYMBOL_nocheck, in kex's own arena; copies only: a memset's wrapper
# jumps to libc's memset for another fill byte, which the arena does not link), beside that
# folder's own shared object (lib/old: the file emitted when it was tuned) and the tuned kernel
# as kex generates it (the JIT kernel; for a rep string, rep_movsb/rep_stosb itself).
# Usage: benchmarks/emit_gap.sh TUNEDIR OUTDIR [REPETITIONS] [STREAM...]   (from the project root);
#        then benchmarks/emit_gap_ratios.py OUTDIR prints the paired ratios.
set -eu
tunes=${1:?usage: benchmarks/emit_gap.sh TUNEDIR OUTDIR [REPETITIONS] [STREAM...]}
out=${2:?usage: benchmarks/emit_gap.sh TUNEDIR OUTDIR [REPETITIONS] [STREAM...]}
reps=${3:-20}
shift $(( $# >= 3 ? 3 : 2 ))
streams=("$@")
[ ${#streams[@]} -gt 0 ] || streams=(Memcpy_Fleet Memcpy_0 Memcpy_1 Memcpy_2 Memcpy_3 Memcpy_4 Memcpy_5 Memcpy_6 \
                                     Memcpy_7 Memcpy_8 Memset_Fleet)
mkdir -p "$out"
for s in "${streams[@]}"; do
  op=copy sym=kex_memcpy
  case $s in Memset*) op=clear sym=kex_memset ;; esac
  ./build/kex emit --format gas --tune "$tunes/tune-$s.json" --force -o "$out/tuned-$s.s"
  cc -shared -o "$out/tuned-$s.so" "$out/tuned-$s.s"
  cp "$tunes/tune-$s.json" "$out/"
  jit=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tune"]["dispatch"][0]["kernel"])' \
        "$out/tune-$s.json")
  case $jit in memcpy|memset) jit=() ;; *) jit=("$jit") ;; esac
  loads=(--load "new=$out/tuned-$s.so:$sym:$op" --load "old=$tunes/tuned-$s.so:$sym:$op")
  names=(lib/new lib/old)
  if [ "$op" = copy ]; then loads+=(--load "newasm=$out/tuned-$s.s:${sym}_nocheck:$op"); names+=(asm/newasm); fi
  ./build/kex run -q "${loads[@]}" "${names[@]}" ${jit[@]+"${jit[@]}"} --stream "$s" --footprint L2 \
    --repetitions "$reps" --no-plot --no-report --force -o "$out/back-$s.json"
done
