# kex: copy against one core's ceilings per level. Data: roofline-copy.dat
# Render: gnuplot roofline-copy.gp   (writes roofline-copy.png)
#         gnuplot -e 'fmt="svg"' roofline-copy.gp   (writes roofline-copy.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "roofline-copy." . fmt
if (fmt eq "svg") {
  set terminal svg size 960,600 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 960,600 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set title "copy: the best entry per size against one core's ceilings per level\012golden (Golden CPU)"
set xlabel "size (bytes per call, log2); a copy's level holds src + dst"
set ylabel "GB/s (1e9 bytes/s)"
set logscale x 2
set format x "%.0b%B"
set xrange [4096:67108864]
set yrange [0:480]
set grid xtics ytics lc rgb "#dddddd" lt 1
set key outside right top vertical Left reverse font ",9"
set label "L1d\012probed at 16 KiB" at 8192, graph 0.96 center font ",9" textcolor rgb "#444444" front
set arrow from 16384, graph 0 to 16384, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "L2\012probed at 256 KiB" at 65536, graph 0.96 center font ",9" textcolor rgb "#444444" front
set arrow from 262144, graph 0 to 262144, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "LLC\012probed at 16 MiB" at 2097152, graph 0.96 center font ",9" textcolor rgb "#444444" front
set arrow from 16777216, graph 0 to 16777216, graph 1 nohead dt 3 lw 1.5 lc rgb "#777777" back
set label "DRAM\012probed at 128 MiB" at 33554432, graph 0.96 center font ",9" textcolor rgb "#444444" front
plot "roofline-copy.dat" index 0 using 1:2 with lines lw 3 dt 1 lc rgb "#1f77b4" title "read ceiling", \
     "roofline-copy.dat" index 1 using 1:2 with lines lw 3 dt 2 lc rgb "#d62728" title "temporal write ceiling", \
     "roofline-copy.dat" index 2 using 1:2 with lines lw 3 dt 4 lc rgb "#2ca02c" title "non-temporal write ceiling", \
     "roofline-copy.dat" index 3 using 1:2 with linespoints pt 7 ps 0.9 lw 1 lc rgb "#000000" title "best entry per size (median)"
