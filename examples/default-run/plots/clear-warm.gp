# kex: clear bandwidth against size, cache warm. Data: clear-warm.dat
# Render: gnuplot clear-warm.gp   (writes clear-warm.png)
#         gnuplot -e 'fmt="svg"' clear-warm.gp   (writes clear-warm.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "clear-warm." . fmt
if (fmt eq "svg") {
  set terminal svg size 1280,836 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1280,836 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set title "clear bandwidth, warm cache: median per size, band p10 to p90\nvm (Oxide Virtual Turin-like Processor)"
set xlabel "bytes cleared per call (log2 scale)"
set ylabel "bandwidth, GB/s (10⁹ bytes cleared per second)"
set logscale x 2
set xrange [256:6.71089e+07]
set yrange [0:278.834]
set xtics ("256 B" 256, "1 KiB" 1024, "4 KiB" 4096, "16 KiB" 16384, "64 KiB" 65536, "256 KiB" 262144, "1 MiB" 1.04858e+06, "4 MiB" 4.1943e+06, "16 MiB" 1.67772e+07, "64 MiB" 6.71089e+07) rotate by 30 right
set mxtics default
set grid xtics ytics lc rgb "#dddddd" lt 1
set key outside below center vertical maxrows 8 Left reverse width 2 font ",10"
set style fill transparent solid 0.15 noborder
set arrow from 49152, graph 0 to 49152, graph 1 nohead dt 2 lw 1.5 lc rgb "#555555" back
set label "L1d 48 KiB" at 49152, graph 0.98 right rotate by 90 offset character -1.8,0 font ",10" textcolor rgb "#444444" front
set arrow from 1.04858e+06, graph 0 to 1.04858e+06, graph 1 nohead dt 2 lw 1.5 lc rgb "#555555" back
set label "L2 1 MiB" at 1.04858e+06, graph 0.98 right rotate by 90 offset character -1.8,0 font ",10" textcolor rgb "#444444" front
set label "beyond the sizes measured: LLC 508 MiB" at graph 0.99, graph 0.02 right font ",10" textcolor rgb "#444444" front
plot \
  "clear-warm.dat" index 0 using 1:4:5 with filledcurves lc rgb "#1f77b4" notitle, \
  "" index 0 using 1:2 with linespoints lc rgb "#1f77b4" dt 1 lw 2 pt 7 ps 0.6 title "clear/gpr/unroll:64/scratch:8/t/fwd", \
  "" index 1 using 1:4:5 with filledcurves lc rgb "#d62728" notitle, \
  "" index 1 using 1:2 with linespoints lc rgb "#d62728" dt 1 lw 2 pt 7 ps 0.6 title "clear/mmx/unroll:64/scratch:8/t/fwd", \
  "" index 2 using 1:4:5 with filledcurves lc rgb "#2ca02c" notitle, \
  "" index 2 using 1:2 with linespoints lc rgb "#2ca02c" dt 1 lw 2 pt 7 ps 0.6 title "clear/sse/unroll:64/scratch:4/t/fwd", \
  "" index 3 using 1:4:5 with filledcurves lc rgb "#9467bd" notitle, \
  "" index 3 using 1:2 with linespoints lc rgb "#9467bd" dt 1 lw 2 pt 7 ps 0.6 title "clear/avx/unroll:128/scratch:4/t/fwd", \
  "" index 4 using 1:4:5 with filledcurves lc rgb "#ff7f0e" notitle, \
  "" index 4 using 1:2 with linespoints lc rgb "#ff7f0e" dt 1 lw 2 pt 7 ps 0.6 title "clear/avx512/unroll:256/scratch:4/t/fwd", \
  "" index 5 using 1:4:5 with filledcurves lc rgb "#17becf" notitle, \
  "" index 5 using 1:2 with linespoints lc rgb "#17becf" dt 1 lw 2 pt 7 ps 0.6 title "clear/gpr/unroll:64/scratch:8/nt/fwd", \
  "" index 6 using 1:4:5 with filledcurves lc rgb "#8c564b" notitle, \
  "" index 6 using 1:2 with linespoints lc rgb "#8c564b" dt 1 lw 2 pt 7 ps 0.6 title "clear/mmx/unroll:64/scratch:8/nt/fwd", \
  "" index 7 using 1:4:5 with filledcurves lc rgb "#e377c2" notitle, \
  "" index 7 using 1:2 with linespoints lc rgb "#e377c2" dt 1 lw 2 pt 7 ps 0.6 title "clear/sse/unroll:64/scratch:4/nt/fwd", \
  "" index 8 using 1:4:5 with filledcurves lc rgb "#bcbd22" notitle, \
  "" index 8 using 1:2 with linespoints lc rgb "#bcbd22" dt 1 lw 2 pt 7 ps 0.6 title "clear/avx/unroll:128/scratch:4/nt/fwd", \
  "" index 9 using 1:4:5 with filledcurves lc rgb "#7f7f7f" notitle, \
  "" index 9 using 1:2 with linespoints lc rgb "#7f7f7f" dt 1 lw 2 pt 7 ps 0.6 title "clear/avx512/unroll:256/scratch:4/nt/fwd", \
  "" index 10 using 1:4:5 with filledcurves lc rgb "#393b79" notitle, \
  "" index 10 using 1:2 with linespoints lc rgb "#393b79" dt 1 lw 2 pt 7 ps 0.6 title "clear/x87/unroll:64/scratch:8/t/fwd", \
  "" index 11 using 1:4:5 with filledcurves lc rgb "#637939" notitle, \
  "" index 11 using 1:2 with linespoints lc rgb "#637939" dt 1 lw 2 pt 7 ps 0.6 title "clear/avx/unroll:128/scratch:4/t/bwd", \
  "" index 12 using 1:4:5 with filledcurves lc rgb "#1f77b4" notitle, \
  "" index 12 using 1:2 with linespoints lc rgb "#1f77b4" dt 2 lw 2 pt 7 ps 0.6 title "clear/string/unroll:1/t/fwd", \
  "" index 13 using 1:4:5 with filledcurves lc rgb "#d62728" notitle, \
  "" index 13 using 1:2 with linespoints lc rgb "#d62728" dt 2 lw 2 pt 7 ps 0.6 title "clear/string/unroll:8/t/fwd", \
  "" index 14 using 1:4:5 with filledcurves lc rgb "#2ca02c" notitle, \
  "" index 14 using 1:2 with linespoints lc rgb "#2ca02c" dt 2 lw 3 pt 4 ps 0.6 title "memset", \
  "" index 15 using 1:4:5 with filledcurves lc rgb "#9467bd" notitle, \
  "" index 15 using 1:2 with linespoints lc rgb "#9467bd" dt 2 lw 3 pt 4 ps 0.6 title "rep_stosb"
