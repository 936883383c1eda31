# kex: memcpy: GB/s by size and distance. Data: heatmap-3.dat
# Render: gnuplot heatmap-3.gp   (writes heatmap-3.png)
#         gnuplot -e 'fmt="svg"' heatmap-3.gp   (writes heatmap-3.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "heatmap-3." . fmt
if (fmt eq "svg") {
  set terminal svg size 900,600 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 900,600 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set title "memcpy: GB/s by size and distance"
set xlabel "size (bytes per operation)"
set ylabel "distance (dst - src, bytes; rel = mod 4096)"
set cblabel "GB/s (10\342\201\271 bytes per second)"
set cbrange [0:84]
set palette defined (0 "#440154", 1 "#3b528b", 2 "#21918c", 3 "#5ec962", 4 "#fde725")
set xrange [-0.5:1.5]
set yrange [-0.5:1.5]
set tics out nomirror
set xtics ("4 KiB" 0, "64 KiB" 1) rotate by 45 right
set ytics ("none" 0, "4160 (rel 64)" 1)
plot "heatmap-3.dat" using 1:2:3 with image notitle
