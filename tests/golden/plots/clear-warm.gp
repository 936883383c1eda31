# kex: clear bandwidth against size, cache warm. Data: clear-warm.dat
# Render: gnuplot clear-warm.gp   (writes clear-warm.png)
#         gnuplot -e 'fmt="svg"' clear-warm.gp   (writes clear-warm.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "clear-warm." . fmt
if (fmt eq "svg") {
  set terminal svg size 953,520 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 953,520 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set xlabel "size (bytes cleared per call, log2)"
set ylabel "GB/s (1e9 bytes cleared/s)"
set logscale x 2
set xrange [4096:8192]
set yrange [0:219.785]
set xtics ("4K" 4096, "8K" 8192)
set mxtics default
set grid xtics ytics lc rgb "#dddddd" lt 1
set key outside right top vertical Left reverse width 1 font ",9"
set label "beyond the sizes measured: L1d (32 KiB), L2 (512 KiB), LLC (32 MiB)" at graph 0.99, graph 0.02 right font ",9" textcolor rgb "#444444" front
set multiplot layout 1,1 title "clear bandwidth, warm cache, median per size\012golden (Golden CPU)" font ",12"
set title "avx"
plot \
  "clear-warm.dat" index 2 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm.dat" index 0 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "clear-warm.dat" index 0 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "clear/avx/unroll:128/scratch:4/t/fwd", \
  "clear-warm.dat" index 1 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm.dat" index 1 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset (libc)"
unset multiplot
