# kex: clear bandwidth against size, cache warm. Data: clear-warm-presets.dat
# Render: gnuplot clear-warm-presets.gp   (writes clear-warm-presets.png)
#         gnuplot -e 'fmt="svg"' clear-warm-presets.gp   (writes clear-warm-presets.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "clear-warm-presets." . fmt
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
set xrange [16384:6.71089e+07]
set yrange [0:142.077]
set xtics ("16K" 16384, "32K" 32768, "64K" 65536, "128K" 131072, "256K" 262144, "512K" 524288, "1M" 1.04858e+06, "2M" 2.09715e+06, "4M" 4.1943e+06, "8M" 8.38861e+06, "16M" 1.67772e+07, "32M" 3.35544e+07, "64M" 6.71089e+07)
set mxtics default
set grid xtics ytics lc rgb "#dddddd" lt 1
set key outside right top vertical Left reverse width 1 font ",9"
set arrow from 49152, graph 0 to 49152, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "L1d (48 KiB)" at 49152, graph 0.98 right rotate by 90 offset character -0.8,0 font ",9" textcolor rgb "#444444" front
set arrow from 1.04858e+06, graph 0 to 1.04858e+06, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "L2 (1 MiB)" at 1.04858e+06, graph 0.98 right rotate by 90 offset character -0.8,0 font ",9" textcolor rgb "#444444" front
set label "beyond the sizes measured: LLC (508 MiB)" at graph 0.99, graph 0.02 right font ",9" textcolor rgb "#444444" front
set multiplot layout 1,1 title "named presets: clear bandwidth, warm cache, median per size\nvm (Oxide Virtual Turin-like Processor)" font ",12"
set title "other"
plot \
  "clear-warm-presets.dat" index 13 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm-presets.dat" index 0 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "fastc/even_faster_clear", \
  "clear-warm-presets.dat" index 1 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "fastc/fast_clear_page", \
  "clear-warm-presets.dat" index 2 using 1:2 with linespoints lc rgb "#2ca02c" lw 2 dt 1 pt 3 ps 0.6 title "fastc/faster_clear_page", \
  "clear-warm-presets.dat" index 3 using 1:2 with linespoints lc rgb "#9467bd" lw 2 dt 1 pt 4 ps 0.6 title "fastc/normal_clear_page", \
  "clear-warm-presets.dat" index 4 using 1:2 with linespoints lc rgb "#ff7f0e" lw 2 dt 1 pt 5 ps 0.6 title "fastc/slow_zero_page", \
  "clear-warm-presets.dat" index 5 using 1:2 with linespoints lc rgb "#17becf" lw 2 dt 1 pt 6 ps 0.6 title "hahn/fast_clear_page", \
  "clear-warm-presets.dat" index 6 using 1:2 with linespoints lc rgb "#8c564b" lw 2 dt 1 pt 7 ps 0.6 title "xmm64/kernel_clear", \
  "clear-warm-presets.dat" index 7 using 1:2 with linespoints lc rgb "#e377c2" lw 2 dt 1 pt 8 ps 0.6 title "xmm64/nt_clear", \
  "clear-warm-presets.dat" index 8 using 1:2 with linespoints lc rgb "#bcbd22" lw 2 dt 1 pt 9 ps 0.6 title "xmm64/xmm2_clear", \
  "clear-warm-presets.dat" index 9 using 1:2 with linespoints lc rgb "#7f7f7f" lw 2 dt 1 pt 10 ps 0.6 title "xmm64/xmm3_clear", \
  "clear-warm-presets.dat" index 10 using 1:2 with linespoints lc rgb "#393b79" lw 2 dt 1 pt 11 ps 0.6 title "xmm64/xmm_clear", \
  "clear-warm-presets.dat" index 11 using 1:2 with linespoints lc rgb "#637939" lw 2 dt 1 pt 12 ps 0.6 title "xmm64/xmma2_clear", \
  "clear-warm-presets.dat" index 12 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 2 pt 13 ps 0.6 title "xmm64/xmma_clear"
unset multiplot
