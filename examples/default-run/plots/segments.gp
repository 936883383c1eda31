# kex: segment-override loads: ns per loop iteration (fewer is faster; -: skipped, kex segments says why)?vm (Oxide Virtual Turin-like Processor). Data: segments.dat
# Render: gnuplot segments.gp   (writes segments.png)
#         gnuplot -e 'fmt="svg"' segments.gp   (writes segments.svg)
if (!exists("fmt")) fmt = "png"
if (!exists("out")) out = "segments." . fmt
if (fmt eq "svg") {
  set terminal svg size 1077,576 dynamic noenhanced font "Sans,13" background rgb "white"
} else {
  set terminal pngcairo size 1077,576 noenhanced font "Sans,11" background rgb "white"
}
set output out
set encoding utf8
set title "segment-override loads: ns per loop iteration (fewer is faster; -: skipped, kex segments says why)\012vm (Oxide Virtual Turin-like Processor)"
set xlabel "register, and the selector it held on entry (its pop reloads it)"
set ylabel "loop: selector loaded"
set cblabel "ns per iteration"
set cbrange [0:58.1527]
set palette defined (0 "#fde725", 1 "#5ec962", 2 "#21918c", 3 "#3b528b", 4 "#440154")
set xrange [-0.5:10.5]
set yrange [11.5:-0.5]   # first row on top
set tics out nomirror
set xtics ("<none>" 0, "fs, entry null" 1, "gs, entry null" 2, "fs, entry data" 3, "gs, entry data" 4, "fs, entry ldt" 5, "gs, entry ldt" 6, "fs, entry gdt-tls" 7, "gs, entry gdt-tls" 8, "fs, entry gdt-cpunode" 9, "gs, entry gdt-cpunode" 10) rotate by 45 right
set ytics ("2006: data 0x2b" 0, "2006: ldt 0x0f" 1, "2006: gdt-tls 0x00" 2, "2006: gdt-cpunode 0x7b" 3, "2006: gdt-code64 0x33" 4, "2006: gdt-code32 0x23" 5, "mixed: data 0x2b" 6, "mixed: ldt 0x0f" 7, "mixed: gdt-tls 0x00" 8, "mixed: gdt-cpunode 0x7b" 9, "mixed: gdt-code64 0x33" 10, "mixed: gdt-code32 0x23" 11)
plot "segments.dat" using 1:2:3 with image notitle, \
  "" using 1:2:4:(($3 > 26.1687) ? 16777215 : 0) with labels font ",9" textcolor rgb variable notitle
