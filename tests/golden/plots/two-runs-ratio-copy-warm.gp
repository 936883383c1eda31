# kex: copy speedup against size, cache warm. Data: ratio-copy-warm.dat
# Render: gnuplot ratio-copy-warm.gp   (writes ratio-copy-warm.png)
#         gnuplot -e 'fmt="svg"' ratio-copy-warm.gp   (writes ratio-copy-warm.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "ratio-copy-warm." . fmt
if (fmt eq "svg") {
  set terminal svg size 1009,980 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1009,980 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set xlabel "size (bytes copied per call, log2)"
set ylabel "speedup (B GB/s / A GB/s)"
set logscale x 2
set xrange [4096:65536]
set yrange [0.78:1.02]
set xtics ("4K" 4096, "8K" 8192, "16K" 16384, "32K" 32768, "64K" 65536)
set mxtics default
set grid xtics ytics lc rgb "#dddddd" lt 1
set key outside right top vertical Left reverse width 1 font ",9"
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 lc rgb "#000000" back
set arrow from 16384, graph 0 to 16384, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "L1d (src+dst = 32 KiB)" at 16384, graph 0.98 right rotate by 90 offset character -0.8,0 font ",9" textcolor rgb "#444444" front
set label "beyond the sizes measured: L2 (src+dst = 512 KiB), LLC (src+dst = 32 MiB)" at graph 0.99, graph 0.02 right font ",9" textcolor rgb "#444444" front
set multiplot layout 2,1 title "copy speedup, warm cache, median per size\012speedup = B throughput / A throughput, > 1: B faster; A = A, B = B" font ",12"
set title "avx"
plot \
  "ratio-copy-warm.dat" index 0 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 2 pt 1 ps 0.6 title "copy/avx/unroll:128/scratch:4/t/fwd", \
  "ratio-copy-warm.dat" index 1 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 2 pt 2 ps 0.6 title "copy/avx/unroll:128/scratch:4/t/fwd @ dist:4160", \
  "ratio-copy-warm.dat" index 4 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 4 pt 6 ps 0.8 title "memcpy (libc)", \
  "ratio-copy-warm.dat" index 5 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 4 pt 6 ps 0.8 title "memcpy @ dist:4160 (libc)"
set title "string (rep movs/stos)"
plot \
  "ratio-copy-warm.dat" index 2 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 2 pt 1 ps 0.6 title "copy/string/unroll:1/t/fwd", \
  "ratio-copy-warm.dat" index 3 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 2 pt 2 ps 0.6 title "copy/string/unroll:1/t/fwd @ dist:4160", \
  "ratio-copy-warm.dat" index 4 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 4 pt 6 ps 0.8 title "memcpy (libc)", \
  "ratio-copy-warm.dat" index 5 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 4 pt 6 ps 0.8 title "memcpy @ dist:4160 (libc)"
unset multiplot
