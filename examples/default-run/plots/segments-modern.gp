# kex: segment-override modern costs: ns per iteration, one column per run. Data: segments-modern.dat
# Render: gnuplot segments-modern.gp   (writes segments-modern.png)
#         gnuplot -e 'fmt="svg"' segments-modern.gp   (writes segments-modern.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "segments-modern." . fmt
if (fmt eq "svg") {
  set terminal svg size 1168,524 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1168,524 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set title "segment-override costs: one load per iteration (fewer is faster)"
set xlabel "ns per iteration"
set xrange [0:55.0495]
set yrange [11.6:-0.6]   # first row on top
set ytics nomirror font ",10"
set grid xtics lc rgb "#dddddd" lt 1
set style fill solid 0.8 border lc rgb "#333333"
set lmargin 48   # room for the row names
unset key
plot "segments-modern.dat" using (0):($0):ytic(1) with points pt 0 ps 0 notitle, \
  "" using (0.5*$2):($0+0):(0.5*$2):(0.36) with boxxyerror lc rgb "#1f77b4" title "vm (Oxide Virtual Turin-like Processor)", \
  "" using ($2):($0+0):(sprintf(" %.4g", $2)) with labels left font ",9" notitle
