# kex: clear bandwidth against size, cache warm. Data: clear-warm-presets.dat
# Render: gnuplot clear-warm-presets.gp   (writes clear-warm-presets.png)
#         gnuplot -e 'fmt="svg"' clear-warm-presets.gp   (writes clear-warm-presets.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "clear-warm-presets." . fmt
if (fmt eq "svg") {
  set terminal svg size 1906,980 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1906,980 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set xlabel "size (bytes cleared per call, log2)"
set ylabel "GB/s (1e9 bytes cleared/s)"
set logscale x 2
set xrange [4096:6.71089e+07]
set yrange [0:160.968]
set xtics ("4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1.04858e+06, "4M" 4.1943e+06, "16M" 1.67772e+07, "64M" 6.71089e+07)
set mxtics default
set grid xtics ytics lc rgb "#dddddd" lt 1
set key outside right top vertical Left reverse width 1 font ",9"
set arrow from 49152, graph 0 to 49152, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "L1d (48 KiB)" at 49152, graph 0.98 right rotate by 90 offset character -0.8,0 font ",9" textcolor rgb "#444444" front
set arrow from 1.04858e+06, graph 0 to 1.04858e+06, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "L2 (1 MiB)" at 1.04858e+06, graph 0.98 right rotate by 90 offset character -0.8,0 font ",9" textcolor rgb "#444444" front
set label "beyond the sizes measured: LLC (508 MiB)" at graph 0.99, graph 0.02 right font ",9" textcolor rgb "#444444" front
set multiplot layout 2,2 title "named presets by family of origin, libc dashed: clear bandwidth, warm cache, median per size\012vm (Oxide Virtual Turin-like Processor)" font ",12"
set title "fastc presets"
plot \
  "clear-warm-presets.dat" index 14 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm-presets.dat" index 0 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "clear-warm-presets.dat" index 0 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "fastc/even_faster_clear", \
  "clear-warm-presets.dat" index 1 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "clear-warm-presets.dat" index 1 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "fastc/fast_clear_page", \
  "clear-warm-presets.dat" index 2 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#2ca02c" notitle, \
  "clear-warm-presets.dat" index 2 using 1:2 with linespoints lc rgb "#2ca02c" lw 2 dt 1 pt 3 ps 0.6 title "fastc/faster_clear_page", \
  "clear-warm-presets.dat" index 3 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#9467bd" notitle, \
  "clear-warm-presets.dat" index 3 using 1:2 with linespoints lc rgb "#9467bd" lw 2 dt 1 pt 4 ps 0.6 title "fastc/normal_clear_page", \
  "clear-warm-presets.dat" index 4 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#ff7f0e" notitle, \
  "clear-warm-presets.dat" index 4 using 1:2 with linespoints lc rgb "#ff7f0e" lw 2 dt 1 pt 5 ps 0.6 title "fastc/slow_zero_page", \
  "clear-warm-presets.dat" index 6 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm-presets.dat" index 6 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset (libc)"
set title "hahn presets"
plot \
  "clear-warm-presets.dat" index 14 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm-presets.dat" index 5 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "clear-warm-presets.dat" index 5 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "hahn/fast_clear_page", \
  "clear-warm-presets.dat" index 6 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm-presets.dat" index 6 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset (libc)"
set title "xmm64 presets"
plot \
  "clear-warm-presets.dat" index 14 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "clear-warm-presets.dat" index 6 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "clear-warm-presets.dat" index 6 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memset (libc)", \
  "clear-warm-presets.dat" index 7 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "clear-warm-presets.dat" index 7 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "xmm64/kernel_clear", \
  "clear-warm-presets.dat" index 8 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "clear-warm-presets.dat" index 8 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "xmm64/nt_clear", \
  "clear-warm-presets.dat" index 9 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#2ca02c" notitle, \
  "clear-warm-presets.dat" index 9 using 1:2 with linespoints lc rgb "#2ca02c" lw 2 dt 1 pt 3 ps 0.6 title "xmm64/xmm2_clear", \
  "clear-warm-presets.dat" index 10 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#9467bd" notitle, \
  "clear-warm-presets.dat" index 10 using 1:2 with linespoints lc rgb "#9467bd" lw 2 dt 1 pt 4 ps 0.6 title "xmm64/xmm3_clear", \
  "clear-warm-presets.dat" index 11 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#ff7f0e" notitle, \
  "clear-warm-presets.dat" index 11 using 1:2 with linespoints lc rgb "#ff7f0e" lw 2 dt 1 pt 5 ps 0.6 title "xmm64/xmm_clear", \
  "clear-warm-presets.dat" index 12 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#17becf" notitle, \
  "clear-warm-presets.dat" index 12 using 1:2 with linespoints lc rgb "#17becf" lw 2 dt 1 pt 6 ps 0.6 title "xmm64/xmma2_clear", \
  "clear-warm-presets.dat" index 13 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#8c564b" notitle, \
  "clear-warm-presets.dat" index 13 using 1:2 with linespoints lc rgb "#8c564b" lw 2 dt 1 pt 7 ps 0.6 title "xmm64/xmma_clear"
unset multiplot
