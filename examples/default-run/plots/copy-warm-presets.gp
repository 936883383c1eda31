# kex: copy bandwidth against size, cache warm. Data: copy-warm-presets.dat
# Render: gnuplot copy-warm-presets.gp   (writes copy-warm-presets.png)
#         gnuplot -e 'fmt="svg"' copy-warm-presets.gp   (writes copy-warm-presets.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "copy-warm-presets." . fmt
if (fmt eq "svg") {
  set terminal svg size 1280,785 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1280,785 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set title "named presets: copy bandwidth, warm cache: median per size, band p10 to p90\nvm (Oxide Virtual Turin-like Processor)"
set xlabel "bytes copied per call (log2 scale)"
set ylabel "bandwidth, GB/s (10⁹ bytes copied per second)"
set logscale x 2
set xrange [16384:6.71089e+07]
set yrange [0:153.654]
set xtics ("16 KiB" 16384, "32 KiB" 32768, "64 KiB" 65536, "128 KiB" 131072, "256 KiB" 262144, "512 KiB" 524288, "1 MiB" 1.04858e+06, "2 MiB" 2.09715e+06, "4 MiB" 4.1943e+06, "8 MiB" 8.38861e+06, "16 MiB" 1.67772e+07, "32 MiB" 3.35544e+07, "64 MiB" 6.71089e+07) rotate by 30 right
set mxtics default
set grid xtics ytics lc rgb "#dddddd" lt 1
set key outside below center vertical maxrows 5 Left reverse width 2 font ",10"
set style fill transparent solid 0.15 noborder
set arrow from 49152, graph 0 to 49152, graph 1 nohead dt 2 lw 1.5 lc rgb "#555555" back
set label "L1d 48 KiB" at 49152, graph 0.98 right rotate by 90 offset character -1.8,0 font ",10" textcolor rgb "#444444" front
set arrow from 1.04858e+06, graph 0 to 1.04858e+06, graph 1 nohead dt 2 lw 1.5 lc rgb "#555555" back
set label "L2 1 MiB" at 1.04858e+06, graph 0.98 right rotate by 90 offset character -1.8,0 font ",10" textcolor rgb "#444444" front
set label "beyond the sizes measured: LLC 508 MiB" at graph 0.99, graph 0.02 right font ",10" textcolor rgb "#444444" front
plot \
  "copy-warm-presets.dat" index 0 using 1:4:5 with filledcurves lc rgb "#1f77b4" notitle, \
  "" index 0 using 1:2 with linespoints lc rgb "#1f77b4" dt 1 lw 2 pt 7 ps 0.6 title "fastc/fast_copy_page", \
  "" index 1 using 1:4:5 with filledcurves lc rgb "#d62728" notitle, \
  "" index 1 using 1:2 with linespoints lc rgb "#d62728" dt 1 lw 2 pt 7 ps 0.6 title "fastc/normal_copy_page", \
  "" index 2 using 1:4:5 with filledcurves lc rgb "#2ca02c" notitle, \
  "" index 2 using 1:2 with linespoints lc rgb "#2ca02c" dt 1 lw 2 pt 7 ps 0.6 title "fastc/slow_copy_page", \
  "" index 3 using 1:4:5 with filledcurves lc rgb "#9467bd" notitle, \
  "" index 3 using 1:2 with linespoints lc rgb "#9467bd" dt 1 lw 2 pt 7 ps 0.6 title "fastc/faster_copy", \
  "" index 4 using 1:4:5 with filledcurves lc rgb "#ff7f0e" notitle, \
  "" index 4 using 1:2 with linespoints lc rgb "#ff7f0e" dt 1 lw 2 pt 7 ps 0.6 title "fastc/even_faster", \
  "" index 5 using 1:4:5 with filledcurves lc rgb "#17becf" notitle, \
  "" index 5 using 1:2 with linespoints lc rgb "#17becf" dt 1 lw 2 pt 7 ps 0.6 title "fastc/no_prefetch", \
  "" index 6 using 1:4:5 with filledcurves lc rgb "#8c564b" notitle, \
  "" index 6 using 1:2 with linespoints lc rgb "#8c564b" dt 1 lw 2 pt 7 ps 0.6 title "xmm64/xmm_copy_page_no", \
  "" index 7 using 1:4:5 with filledcurves lc rgb "#e377c2" notitle, \
  "" index 7 using 1:2 with linespoints lc rgb "#e377c2" dt 1 lw 2 pt 7 ps 0.6 title "xmm64/xmm_copy_page", \
  "" index 8 using 1:4:5 with filledcurves lc rgb "#bcbd22" notitle, \
  "" index 8 using 1:2 with linespoints lc rgb "#bcbd22" dt 1 lw 2 pt 7 ps 0.6 title "xmm64/xmma_copy_page", \
  "" index 9 using 1:4:5 with filledcurves lc rgb "#7f7f7f" notitle, \
  "" index 9 using 1:2 with linespoints lc rgb "#7f7f7f" dt 1 lw 2 pt 7 ps 0.6 title "xmm64/xmm3_copy_page", \
  "" index 10 using 1:4:5 with filledcurves lc rgb "#393b79" notitle, \
  "" index 10 using 1:2 with linespoints lc rgb "#393b79" dt 1 lw 2 pt 7 ps 0.6 title "xmm64/v26_copy_page", \
  "" index 11 using 1:4:5 with filledcurves lc rgb "#637939" notitle, \
  "" index 11 using 1:2 with linespoints lc rgb "#637939" dt 1 lw 2 pt 7 ps 0.6 title "xmm64/nt_copy_page", \
  "" index 12 using 1:4:5 with filledcurves lc rgb "#1f77b4" notitle, \
  "" index 12 using 1:2 with linespoints lc rgb "#1f77b4" dt 2 lw 2 pt 7 ps 0.6 title "hahn/fast_copy_page", \
  "" index 13 using 1:4:5 with filledcurves lc rgb "#d62728" notitle, \
  "" index 13 using 1:2 with linespoints lc rgb "#d62728" dt 2 lw 2 pt 7 ps 0.6 title "hahn/faster_copy", \
  "" index 14 using 1:4:5 with filledcurves lc rgb "#2ca02c" notitle, \
  "" index 14 using 1:2 with linespoints lc rgb "#2ca02c" dt 2 lw 2 pt 7 ps 0.6 title "hahn/even_faster"
