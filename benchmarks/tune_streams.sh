#!/usr/bin/env bash
# Issue 51's benchmark: `kex tune --stream` on each of the ten fleetbench memcpy streams and on
# Memset_Fleet at the L2 footprint, the tuned kernel emitted as GNU as (kex emit --tune), built into
# a shared object (its wrappers jump to libc for what the kernel does not take: a memset of another
# byte) and raced back with --load on the same stream beside libc's function, glibc's variants,
# musl's (Debian's musl-dev: its libc.a member, as asm/musl) and rep movsb/stosb; a memcpy also as
# object code (asm/tunedasm).
# Usage: benchmarks/tune_streams.sh OUTDIR [BUDGET] [STREAM...]   (from the project root, after
#        make run; BUDGET per tune, default 60s; the streams default to all eleven; the race-back
#        has the tuned kernel as kex generates it too, to set the emitted code's time against); then
#        benchmarks/tune_streams_table.sh OUTDIR prints each stream's race-back table.
set -eu
out=${1:?usage: benchmarks/tune_streams.sh OUTDIR [BUDGET] [STREAM...]}
budget=${2:-60s}
shift $(( $# >= 2 ? 2 : 1 ))
streams=("$@")
[ ${#streams[@]} -gt 0 ] || streams=(Memcpy_Fleet Memcpy_0 Memcpy_1 Memcpy_2 Memcpy_3 Memcpy_4 Memcpy_5 Memcpy_6 \
                                     Memcpy_7 Memcpy_8 Memset_Fleet)
mkdir -p "$out"
for s in "${streams[@]}"; do
  op=copy ref=(memcpy glibc-copy rep_movsb asm/musl) sym=kex_memcpy musl='memcpy.lo):memcpy:copy'
  case $s in Memset*) op=clear ref=(memset glibc-clear rep_stosb asm/musl) sym=kex_memset musl='memset.lo):memset:clear' ;; esac
  ./build/kex tune -q --op "$op" --stream "$s" --footprint L2 --budget "$budget" --no-journal --force \
    -o "$out/tune-$s.json" > "$out/tune-$s.txt"
  ./build/kex emit --format gas --tune "$out/tune-$s.json" --force -o "$out/tuned-$s.s"
  cc -shared -o "$out/tuned-$s.so" "$out/tuned-$s.s"
  # The tuned kernel itself as kex generates it (a spec or a dispatch kernel), so the emitted
  # code's time is read against the JIT's in the same rounds; a rep string is a reference already.
  jit=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["tune"]["dispatch"][0]["kernel"])' \
        "$out/tune-$s.json")
  case $jit in rep_movsb|rep_stosb|memcpy|memset) jit=() ;; *) jit=("$jit") ;; esac
  # A copy races back as object code in kex's arena too (asm/tunedasm: the entry without the CPU
  # check); a memset's wrapper jumps to libc's memset for another fill byte, which the arena does
  # not link, so it races as lib/ only.
  asm=()
  [ "$op" = clear ] || asm=(--load "tunedasm=$out/tuned-$s.s:${sym}_nocheck:$op" asm/tunedasm)
  ./build/kex run -q --load "tuned=$out/tuned-$s.so:$sym:$op" --load "musl=/usr/lib/x86_64-linux-musl/libc.a($musl" \
    lib/tuned ${asm[@]+"${asm[@]}"} ${jit[@]+"${jit[@]}"} "${ref[@]}" --stream "$s" --footprint L2 \
    --no-plot --no-report --force -o "$out/back-$s.json"
  echo "$s: $(sed -n 3p "$out/tune-$s.txt" | cut -c1-140)"
done
