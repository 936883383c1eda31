# kex: presets (copy_page): TSC ticks per page, one column per run. Data: presets-copy.dat
# Render: gnuplot presets-copy.gp   (writes presets-copy.png)
#         gnuplot -e 'fmt="svg"' presets-copy.gp   (writes presets-copy.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "presets-copy." . fmt
if (fmt eq "svg") {
  set terminal svg size 1136,684 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1136,684 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set title "named presets, copy_page: TSC ticks per 4096-byte page (fewer is faster)\012libc baselines from the same run"
set xlabel "TSC ticks per page (median; seed harnesses: their single pass)"
set xrange [0:785.894]
set yrange [16.6:-0.6]   # first row on top
set ytics nomirror font ",10"
set grid xtics lc rgb "#dddddd" lt 1
set style fill solid 0.8 border lc rgb "#333333"
set lmargin 44   # room for the row names
unset key
plot "presets-copy.dat" using (0):($0):ytic(1) with points pt 0 ps 0 notitle, \
  "" using (0.5*$2):($0+0):(0.5*$2):(0.36) with boxxyerror lc rgb "#1f77b4" title "vm (Oxide Virtual Turin-like Processor)", \
  "" using ($2):($0+0):(sprintf(" %.4g", $2)) with labels left font ",9" notitle
