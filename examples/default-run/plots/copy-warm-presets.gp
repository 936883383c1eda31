# kex: copy bandwidth against size, cache warm. Data: copy-warm-presets.dat
# Render: gnuplot copy-warm-presets.gp   (writes copy-warm-presets.png)
#         gnuplot -e 'fmt="svg"' copy-warm-presets.gp   (writes copy-warm-presets.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "copy-warm-presets." . fmt
if (fmt eq "svg") {
  set terminal svg size 1906,980 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1906,980 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set xlabel "size (bytes copied per call, log2)"
set ylabel "GB/s (1e9 bytes copied/s)"
set logscale x 2
set xrange [4096:6.71089e+07]
set yrange [0:158.133]
set xtics ("4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1.04858e+06, "4M" 4.1943e+06, "16M" 1.67772e+07, "64M" 6.71089e+07)
set mxtics default
set grid xtics ytics lc rgb "#dddddd" lt 1
set key outside right top vertical Left reverse width 1 font ",9"
set arrow from 24576, graph 0 to 24576, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "L1d (src+dst = 48 KiB)" at 24576, graph 0.98 right rotate by 90 offset character -0.8,0 font ",9" textcolor rgb "#444444" front
set arrow from 524288, graph 0 to 524288, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "L2 (src+dst = 1 MiB)" at 524288, graph 0.98 right rotate by 90 offset character -0.8,0 font ",9" textcolor rgb "#444444" front
set label "beyond the sizes measured: LLC (src+dst = 508 MiB)" at graph 0.99, graph 0.02 right font ",9" textcolor rgb "#444444" front
set multiplot layout 2,2 title "named presets by family of origin, libc dashed: copy bandwidth, warm cache, median per size\012vm (Oxide Virtual Turin-like Processor)" font ",12"
set title "fastc presets"
plot \
  "copy-warm-presets.dat" index 16 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "copy-warm-presets.dat" index 0 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "copy-warm-presets.dat" index 0 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "fastc/even_faster", \
  "copy-warm-presets.dat" index 1 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "copy-warm-presets.dat" index 1 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "fastc/fast_copy_page", \
  "copy-warm-presets.dat" index 2 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#2ca02c" notitle, \
  "copy-warm-presets.dat" index 2 using 1:2 with linespoints lc rgb "#2ca02c" lw 2 dt 1 pt 3 ps 0.6 title "fastc/faster_copy", \
  "copy-warm-presets.dat" index 3 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#9467bd" notitle, \
  "copy-warm-presets.dat" index 3 using 1:2 with linespoints lc rgb "#9467bd" lw 2 dt 1 pt 4 ps 0.6 title "fastc/no_prefetch", \
  "copy-warm-presets.dat" index 4 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#ff7f0e" notitle, \
  "copy-warm-presets.dat" index 4 using 1:2 with linespoints lc rgb "#ff7f0e" lw 2 dt 1 pt 5 ps 0.6 title "fastc/normal_copy_page", \
  "copy-warm-presets.dat" index 5 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#17becf" notitle, \
  "copy-warm-presets.dat" index 5 using 1:2 with linespoints lc rgb "#17becf" lw 2 dt 1 pt 6 ps 0.6 title "fastc/slow_copy_page", \
  "copy-warm-presets.dat" index 9 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "copy-warm-presets.dat" index 9 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memcpy (libc)"
set title "hahn presets"
plot \
  "copy-warm-presets.dat" index 16 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "copy-warm-presets.dat" index 6 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "copy-warm-presets.dat" index 6 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "hahn/even_faster", \
  "copy-warm-presets.dat" index 7 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "copy-warm-presets.dat" index 7 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "hahn/fast_copy_page", \
  "copy-warm-presets.dat" index 8 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#2ca02c" notitle, \
  "copy-warm-presets.dat" index 8 using 1:2 with linespoints lc rgb "#2ca02c" lw 2 dt 1 pt 3 ps 0.6 title "hahn/faster_copy", \
  "copy-warm-presets.dat" index 9 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "copy-warm-presets.dat" index 9 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memcpy (libc)"
set title "xmm64 presets"
plot \
  "copy-warm-presets.dat" index 16 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "copy-warm-presets.dat" index 9 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "copy-warm-presets.dat" index 9 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memcpy (libc)", \
  "copy-warm-presets.dat" index 10 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "copy-warm-presets.dat" index 10 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "xmm64/nt_copy_page", \
  "copy-warm-presets.dat" index 11 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "copy-warm-presets.dat" index 11 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "xmm64/v26_copy_page", \
  "copy-warm-presets.dat" index 12 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#2ca02c" notitle, \
  "copy-warm-presets.dat" index 12 using 1:2 with linespoints lc rgb "#2ca02c" lw 2 dt 1 pt 3 ps 0.6 title "xmm64/xmm3_copy_page", \
  "copy-warm-presets.dat" index 13 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#9467bd" notitle, \
  "copy-warm-presets.dat" index 13 using 1:2 with linespoints lc rgb "#9467bd" lw 2 dt 1 pt 4 ps 0.6 title "xmm64/xmm_copy_page", \
  "copy-warm-presets.dat" index 14 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#ff7f0e" notitle, \
  "copy-warm-presets.dat" index 14 using 1:2 with linespoints lc rgb "#ff7f0e" lw 2 dt 1 pt 5 ps 0.6 title "xmm64/xmm_copy_page_no", \
  "copy-warm-presets.dat" index 15 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#17becf" notitle, \
  "copy-warm-presets.dat" index 15 using 1:2 with linespoints lc rgb "#17becf" lw 2 dt 1 pt 6 ps 0.6 title "xmm64/xmma_copy_page"
unset multiplot
