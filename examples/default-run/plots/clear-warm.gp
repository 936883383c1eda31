# kex: clear bandwidth against size, cache warm. Data: clear-warm.dat
# Render: gnuplot clear-warm.gp   (writes clear-warm.png)
#         gnuplot -e 'fmt="svg"' clear-warm.gp   (writes clear-warm.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "clear-warm." . fmt
if (fmt eq "svg") {
  set terminal svg size 2060,1900 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 2060,1900 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set xlabel "size (bytes cleared per call, log2)"
set ylabel "GB/s (1e9 bytes cleared/s)"
set logscale x 2
set xrange [256:6.71089e+07]
set yrange [0:251.152]
set xtics ("256" 256, "1K" 1024, "4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1.04858e+06, "4M" 4.1943e+06, "16M" 1.67772e+07, "64M" 6.71089e+07)
set mxtics default
set grid xtics ytics lc rgb "#dddddd" lt 1
set key outside right top vertical Left reverse width 1 font ",9"
set arrow from 49152, graph 0 to 49152, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "L1d (48 KiB)" at 49152, graph 0.98 right rotate by 90 offset character -0.8,0 font ",9" textcolor rgb "#444444" front
set arrow from 1.04858e+06, graph 0 to 1.04858e+06, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "L2 (1 MiB)" at 1.04858e+06, graph 0.98 right rotate by 90 offset character -0.8,0 font ",9" textcolor rgb "#444444" front
set label "beyond the sizes measured: LLC (508 MiB)" at graph 0.99, graph 0.02 right font ",9" textcolor rgb "#444444" front
set multiplot layout 4,2 title "clear bandwidth, warm cache, median per size\012vm (Oxide Virtual Turin-like Processor)" font ",12"
set title "avx"
plot \
  "clear-warm.dat" index 22 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm.dat" index 0 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "clear-warm.dat" index 0 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "clear/avx/unroll:128/scratch:4/nt/fwd", \
  "clear-warm.dat" index 1 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "clear-warm.dat" index 1 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "clear/avx/unroll:128/scratch:4/nt/fwd/fill:0xaa", \
  "clear-warm.dat" index 2 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#2ca02c" notitle, \
  "clear-warm.dat" index 2 using 1:2 with linespoints lc rgb "#2ca02c" lw 2 dt 1 pt 3 ps 0.6 title "clear/avx/unroll:128/scratch:4/t/bwd", \
  "clear-warm.dat" index 3 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#9467bd" notitle, \
  "clear-warm.dat" index 3 using 1:2 with linespoints lc rgb "#9467bd" lw 2 dt 1 pt 4 ps 0.6 title "clear/avx/unroll:128/scratch:4/t/fwd", \
  "clear-warm.dat" index 4 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#ff7f0e" notitle, \
  "clear-warm.dat" index 4 using 1:2 with linespoints lc rgb "#ff7f0e" lw 2 dt 1 pt 5 ps 0.6 title "clear/avx/unroll:128/scratch:4/t/fwd/fill:0xaa", \
  "clear-warm.dat" index 18 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 18 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset (libc)", \
  "clear-warm.dat" index 19 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 19 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset/fill:0xaa (libc)"
set title "avx512"
plot \
  "clear-warm.dat" index 22 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm.dat" index 5 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "clear-warm.dat" index 5 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "clear/avx512/unroll:256/scratch:4/nt/fwd", \
  "clear-warm.dat" index 6 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "clear-warm.dat" index 6 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "clear/avx512/unroll:256/scratch:4/nt/fwd/fill:0xaa", \
  "clear-warm.dat" index 7 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#2ca02c" notitle, \
  "clear-warm.dat" index 7 using 1:2 with linespoints lc rgb "#2ca02c" lw 2 dt 1 pt 3 ps 0.6 title "clear/avx512/unroll:256/scratch:4/t/fwd", \
  "clear-warm.dat" index 8 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#9467bd" notitle, \
  "clear-warm.dat" index 8 using 1:2 with linespoints lc rgb "#9467bd" lw 2 dt 1 pt 4 ps 0.6 title "clear/avx512/unroll:256/scratch:4/t/fwd/fill:0xaa", \
  "clear-warm.dat" index 18 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 18 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset (libc)", \
  "clear-warm.dat" index 19 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 19 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset/fill:0xaa (libc)"
set title "gpr"
plot \
  "clear-warm.dat" index 22 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm.dat" index 9 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "clear-warm.dat" index 9 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "clear/gpr/unroll:64/scratch:8/nt/fwd", \
  "clear-warm.dat" index 10 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "clear-warm.dat" index 10 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "clear/gpr/unroll:64/scratch:8/t/fwd", \
  "clear-warm.dat" index 18 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 18 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset (libc)", \
  "clear-warm.dat" index 19 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 19 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset/fill:0xaa (libc)"
set title "mmx"
plot \
  "clear-warm.dat" index 22 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm.dat" index 11 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "clear-warm.dat" index 11 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "clear/mmx/unroll:64/scratch:8/nt/fwd", \
  "clear-warm.dat" index 12 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "clear-warm.dat" index 12 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "clear/mmx/unroll:64/scratch:8/t/fwd", \
  "clear-warm.dat" index 18 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 18 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset (libc)", \
  "clear-warm.dat" index 19 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 19 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset/fill:0xaa (libc)"
set title "sse"
plot \
  "clear-warm.dat" index 22 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm.dat" index 13 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "clear-warm.dat" index 13 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "clear/sse/unroll:64/scratch:4/nt/fwd", \
  "clear-warm.dat" index 14 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "clear-warm.dat" index 14 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "clear/sse/unroll:64/scratch:4/t/fwd", \
  "clear-warm.dat" index 18 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 18 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset (libc)", \
  "clear-warm.dat" index 19 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 19 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset/fill:0xaa (libc)"
set title "string (rep movs/stos)"
plot \
  "clear-warm.dat" index 22 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm.dat" index 15 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "clear-warm.dat" index 15 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "clear/string/unroll:1/t/fwd", \
  "clear-warm.dat" index 16 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "clear-warm.dat" index 16 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "clear/string/unroll:8/t/fwd", \
  "clear-warm.dat" index 18 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 18 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset (libc)", \
  "clear-warm.dat" index 19 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 19 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset/fill:0xaa (libc)", \
  "clear-warm.dat" index 20 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#2ca02c" notitle, \
  "clear-warm.dat" index 20 using 1:2 with linespoints lc rgb "#2ca02c" lw 2 dt 1 pt 3 ps 0.6 title "rep_stosb", \
  "clear-warm.dat" index 21 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#9467bd" notitle, \
  "clear-warm.dat" index 21 using 1:2 with linespoints lc rgb "#9467bd" lw 2 dt 1 pt 4 ps 0.6 title "rep_stosb/fill:0xaa"
set title "x87"
plot \
  "clear-warm.dat" index 22 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm.dat" index 17 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "clear-warm.dat" index 17 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "clear/x87/unroll:64/scratch:8/t/fwd", \
  "clear-warm.dat" index 18 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 18 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset (libc)", \
  "clear-warm.dat" index 19 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 19 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset/fill:0xaa (libc)"
unset multiplot
