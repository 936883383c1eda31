# kex: presets: cycles per page, one column per run. Data: presets.dat
# Render: gnuplot presets.gp   (writes presets.png)
#         gnuplot -e 'fmt="svg"' presets.gp   (writes presets.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "presets." . fmt
if (fmt eq "svg") {
  set terminal svg size 1100,876 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1100,876 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set title "named presets: cycles per 4096-byte page (fewer is faster)"
set xlabel "cycles per page (core cycles, imul-chain estimate)"
set xrange [0:997.08]
set yrange [22.6:-0.6]   # first row on top
set ytics nomirror font ",10"
set grid xtics lc rgb "#dddddd" lt 1
set style fill solid 0.8 border lc rgb "#333333"
set lmargin 20   # room for the row names
unset key
plot "presets.dat" using (0):($0):ytic(1) with points pt 0 ps 0 notitle, \
  "" using (0.5*$2):($0+0):(0.5*$2):(0.36) with boxxyerror lc rgb "#1f77b4" title "vm (Oxide Virtual Turin-like Processor)", \
  "" using ($2):($0+0):(sprintf(" %.4g", $2)) with labels left font ",9" notitle
