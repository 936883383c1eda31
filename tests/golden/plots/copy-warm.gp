# kex: copy bandwidth against size, cache warm. Data: copy-warm.dat
# Render: gnuplot copy-warm.gp   (writes copy-warm.png)
#         gnuplot -e 'fmt="svg"' copy-warm.gp   (writes copy-warm.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "copy-warm." . fmt
if (fmt eq "svg") {
  set terminal svg size 1009,980 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1009,980 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set xlabel "size (bytes copied per call, log2)"
set ylabel "GB/s (1e9 bytes copied/s)"
set logscale x 2
set xrange [4096:65536]
set yrange [0:99]
set xtics ("4K" 4096, "8K" 8192, "16K" 16384, "32K" 32768, "64K" 65536)
set mxtics default
set grid xtics ytics lc rgb "#dddddd" lt 1
set key outside right top vertical Left reverse width 1 font ",9"
set arrow from 16384, graph 0 to 16384, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "L1d (src+dst = 32 KiB)" at 16384, graph 0.98 right rotate by 90 offset character -0.8,0 font ",9" textcolor rgb "#444444" front
set label "beyond the sizes measured: L2 (src+dst = 512 KiB), LLC (src+dst = 32 MiB)" at graph 0.99, graph 0.02 right font ",9" textcolor rgb "#444444" front
set multiplot layout 2,1 title "copy bandwidth, warm cache, median per size\012golden (Golden CPU)" font ",12"
set title "avx"
plot \
  "copy-warm.dat" index 6 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "copy-warm.dat" index 0 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "copy-warm.dat" index 0 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "copy/avx/unroll:128/scratch:4/t/fwd", \
  "copy-warm.dat" index 1 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "copy-warm.dat" index 1 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "copy/avx/unroll:128/scratch:4/t/fwd @ dist:4160", \
  "copy-warm.dat" index 4 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "copy-warm.dat" index 4 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memcpy (libc)", \
  "copy-warm.dat" index 5 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "copy-warm.dat" index 5 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memcpy @ dist:4160 (libc)"
set title "string (rep movs/stos)"
plot \
  "copy-warm.dat" index 6 using 1:2 with lines lc rgb "#b0b0b0" lw 7 dt 1 title "best of all kernels per size (envelope)", \
  "copy-warm.dat" index 2 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#1f77b4" notitle, \
  "copy-warm.dat" index 2 using 1:2 with linespoints lc rgb "#1f77b4" lw 2 dt 1 pt 1 ps 0.6 title "copy/string/unroll:1/t/fwd", \
  "copy-warm.dat" index 3 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#d62728" notitle, \
  "copy-warm.dat" index 3 using 1:2 with linespoints lc rgb "#d62728" lw 2 dt 1 pt 2 ps 0.6 title "copy/string/unroll:1/t/fwd @ dist:4160", \
  "copy-warm.dat" index 4 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "copy-warm.dat" index 4 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memcpy (libc)", \
  "copy-warm.dat" index 5 using 1:4:5 with filledcurves fs transparent solid 0.12 noborder lc rgb "#000000" notitle, \
  "copy-warm.dat" index 5 using 1:2 with linespoints lc rgb "#000000" lw 2.5 dt 2 pt 6 ps 0.8 title "memcpy @ dist:4160 (libc)"
unset multiplot
