# Asami's runtests -graph (seed 003): one curve per copy function; load 'DIR/graph/plot.gp' in gnuplot
set logscale x 2
set xlabel "copy size (bytes)"
set ylabel "bandwidth (MB/s, 2^20 bytes/s)"
set key outside right
plot "DIR/graph/unrolled_96_32_2.dat" title "unrolled_96_32_2" with linespoints, \
     "DIR/graph/unrolled_96_0_3.dat" title "unrolled_96_0_3" with linespoints, \
     "DIR/graph/FP_copy.dat" title "FP_copy" with linespoints, \
     "DIR/graph/memcpy.dat" title "memcpy" with linespoints
