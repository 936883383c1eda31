# kex: copy bandwidth against size, cache warm. Data: copy-warm-presets.dat
# Render: gnuplot copy-warm-presets.gp   (writes copy-warm-presets.png)
#         gnuplot -e 'fmt="svg"' copy-warm-presets.gp   (writes copy-warm-presets.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "copy-warm-presets." . fmt
if (fmt eq "svg") {
  set terminal svg size 953,520 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 953,520 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set xlabel "size (bytes copied per call, log2)"
set ylabel "GB/s (1e9 bytes copied/s)"
set logscale x 2
set xrange [4096:8192]
set yrange [0:92.4]
set xtics ("4K" 4096, "8K" 8192)
set mxtics default
set grid xtics ytics lc rgb "#dddddd" lt 1
set key outside right top vertical Left reverse width 1 font ",9"
set label "beyond the sizes measured: L1d (src+dst = 32 KiB), L2 (src+dst = 512 KiB), LLC (src+dst = 32 MiB)" at graph 0.99, graph 0.02 right font ",9" textcolor rgb "#444444" front
set multiplot layout 1,1 title "named presets by family of origin, libc dashed: copy bandwidth, warm cache, median per size\012golden (Golden CPU)" font ",12"
set title "fastc presets"
plot \
  "copy-warm-presets.dat" index 3 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "copy-warm-presets.dat" index 0 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "copy-warm-presets.dat" index 0 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "fastc/faster_copy", \
  "copy-warm-presets.dat" index 1 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "copy-warm-presets.dat" index 1 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memcpy (libc)", \
  "copy-warm-presets.dat" index 2 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "copy-warm-presets.dat" index 2 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memcpy @ dist:4160 (libc)"
unset multiplot
