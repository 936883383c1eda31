# kex: aggregate GB/s by threads. Data: scaling-copy.dat
# Render: gnuplot scaling-copy.gp   (writes scaling-copy.png)
#         gnuplot -e 'fmt="svg"' scaling-copy.gp   (writes scaling-copy.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "scaling-copy." . fmt
if (fmt eq "svg") {
  set terminal svg size 1440,560 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1440,560 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set multiplot layout 1,2 title "copy scaling: aggregate GB/s (bytes of every worker) against threads\012golden (Golden CPU)"
set xlabel "threads"
set ylabel "GB/s (1e9 B/s), all workers"
set xrange [0.8:2.2]
set xtics 1
set yrange [0:*]
set grid lc rgb "#dddddd"
set key below vertical font ",9"
set title "4 KiB per worker"
plot 81.92*x with lines dt 2 lw 2 lc rgb "#999999" title "perfect scaling", \
     "scaling-copy.dat" index 0 using 1:2 with linespoints lw 2 pt 7 lc rgb "#1f77b4" dt 1 title "copy/avx/unroll:128/scratch:4/t/fwd", \
     "scaling-copy.dat" index 1 using 1:2 with linespoints lw 2 pt 7 lc rgb "#d62728" dt 1 title "memcpy"
set title "64 MiB per worker"
plot 22.3696*x with lines dt 2 lw 2 lc rgb "#999999" title "perfect scaling", \
     "scaling-copy.dat" index 2 using 1:2 with linespoints lw 2 pt 7 lc rgb "#1f77b4" dt 1 title "copy/avx/unroll:128/scratch:4/t/fwd"
unset multiplot
