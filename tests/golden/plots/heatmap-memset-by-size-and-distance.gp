# kex: memset: GB/s by size and distance. Data: heatmap-memset-by-size-and-distance.dat
# Render: gnuplot heatmap-memset-by-size-and-distance.gp   (writes heatmap-memset-by-size-and-distance.png)
#         gnuplot -e 'fmt="svg"' heatmap-memset-by-size-and-distance.gp   (writes heatmap-memset-by-size-and-distance.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "heatmap-memset-by-size-and-distance." . fmt
if (fmt eq "svg") {
  set terminal svg size 700,420 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 700,420 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set title "memset: GB/s by size and distance"
set xlabel "size (bytes per operation)"
set ylabel "distance (dst - src, bytes; rel = mod 4096)"
set cblabel "GB/s (1e9 bytes per second)"
set cbrange [0:186.182]
set palette defined (0 "#440154", 1 "#3b528b", 2 "#21918c", 3 "#5ec962", 4 "#fde725")
set xrange [-0.5:1.5]
set yrange [1.5:-0.5]   # first row on top
set tics out nomirror
set xtics ("4 KiB" 0, "64 KiB" 1) rotate by 45 right
set ytics ("none" 0, "4160 (rel 64)" 1)
plot "heatmap-memset-by-size-and-distance.dat" using 1:2:3 with image notitle, \
  "" using 1:2:4:(($3 < 102.4) ? 16777215 : 0) with labels font ",9" textcolor rgb variable notitle
