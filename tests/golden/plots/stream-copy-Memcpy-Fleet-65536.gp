# kex: a stream's size CDF and each competitor's ns per call on it. Data: stream-copy-Memcpy-Fleet-65536.dat
# Render: gnuplot stream-copy-Memcpy-Fleet-65536.gp   (writes stream-copy-Memcpy-Fleet-65536.png)
#         gnuplot -e 'fmt="svg"' stream-copy-Memcpy-Fleet-65536.gp   (writes stream-copy-Memcpy-Fleet-65536.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "stream-copy-Memcpy-Fleet-65536." . fmt
if (fmt eq "svg") {
  set terminal svg size 1594,460 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1594,460 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set multiplot layout 1,2 title "copy on stream Memcpy_Fleet (footprint 64 KiB, 4096 calls a pass, seed 1)\012golden (Golden CPU)"
set title "sizes of the calls: P(size <= x)"
set xlabel "size (bytes)"
set ylabel "share of calls"
set logscale x 2
set format x "%.0b%B"
set xrange [1:*]
set yrange [0:1.02]
set grid lc rgb "#dddddd"
set key bottom right font ",10"
plot "stream-copy-Memcpy-Fleet-65536.dat" index 0 using ($1 < 1 ? 1 : $1):2 with steps lw 2 lc rgb "#1f77b4" title "the distribution", \
     "stream-copy-Memcpy-Fleet-65536.dat" index 2 using 1:2 with points pt 7 ps 1.2 lc rgb "#d62728" title "fixed sizes measured beside it"
unset logscale x
set format x "%g"
unset key
set title "time per call (median; 95% interval of the ratio to the fastest)"
set xlabel "ns per call (the timed loop's own cost inside)"
set ylabel ""
set xrange [0:16.4881]
set yrange [3.6:-0.6]
set ytics nomirror font ",9"
set lmargin 44
set style fill solid 0.7 border lc rgb "#333333"
plot "stream-copy-Memcpy-Fleet-65536.dat" index 1 using (0.5*$2):1:(0.5*$2):(0.35):ytic(5) with boxxyerror lc rgb "#1f77b4", \
     "stream-copy-Memcpy-Fleet-65536.dat" index 1 using 2:1:3:4 with xerrorbars pt 0 lc rgb "#333333", \
     "stream-copy-Memcpy-Fleet-65536.dat" index 1 using 4:1:(sprintf(" %.3g", $2)) with labels left font ",9"
unset multiplot
