# perfmodel roofline — measured roofs (solid), datasheet peaks (grey dashes), kernels measured
# (filled) and predicted (open), joined. Data: roofs.csv, points.csv, workloads.csv. Restyle freely.
set datafile separator ','
set grid lc rgb '#e5e5e5'
set logscale xy 10
set format x '10^{%L}'
set format y '10^{%L}'
set xrange [0.01:1000]
set yrange [1:2e5]
set xlabel 'arithmetic intensity (flop per DRAM byte; per byte moved at the roof drawn)'
set ylabel 'performance (Gflop/s)'
set key below font ',9' samplen 2 maxrows 4
set title "Roofline: NVIDIA H100 80GB HBM3 (measured 2026-11-23)" font ',12'
mn(a,b) = a < b ? a : b
b_dram = 3053.24811
b_l2 = 8424.41211
b_shared = 33318.6761
b_pcie = 54.8186929
plot mn(63713.0862, b_dram*x) with lines lw 2 dt 1 lc rgb '#000000' title 'dram 3053 GB/s', \
     mn(63713.0862, 3352.32*x) with lines lw 1 dt 2 lc rgb '#aaaaaa' notitle, \
     mn(63713.0862, b_l2*x) with lines lw 2 dt 2 lc rgb '#000000' title 'l2 8424 GB/s', \
     mn(63713.0862, b_shared*x) with lines lw 2 dt 3 lc rgb '#000000' title 'shared 33319 GB/s', \
     mn(63713.0862, 33454.08*x) with lines lw 1 dt 2 lc rgb '#aaaaaa' notitle, \
     mn(63713.0862, b_pcie*x) with lines lw 2 dt 4 lc rgb '#000000' title 'pcie 55 GB/s', \
     (x >= 20.8673137 ? 63713.0862 : 1/0) with lines lw 2 lc rgb '#444444' title 'fp32 63.7 Tflop/s', \
     66908.16 with lines lw 1 dt 2 lc rgb '#aaaaaa' title 'fp32 datasheet', \
     (x >= 10.8525409 ? 33135.4999 : 1/0) with lines lw 2 lc rgb '#444444' title 'fp64 33.1 Tflop/s', \
     33454.08 with lines lw 1 dt 2 lc rgb '#aaaaaa' title 'fp64 datasheet', \
     (x >= 21.6469436 ? 66093.4896 : 1/0) with lines lw 2 lc rgb '#444444' title 'fp16 66.1 Tflop/s', \
     133816.32 with lines lw 1 dt 2 lc rgb '#aaaaaa' title 'fp16 datasheet', \
     'points.csv' skip 1 using 3:($4/1e9):(0):(($5-$4)/1e9) with vectors nohead lw 1 lc rgb '#666666' notitle, \
     'points.csv' skip 1 using 3:($4/1e9) with points pt 7 ps 1.0 lc rgb '#000000' title 'measured (validation run)', \
     'points.csv' skip 1 using 3:($5/1e9) with points pt 6 ps 1.3 lc rgb '#000000' title 'predicted', \
     'points.csv' skip 1 using 3:($4/1e9):1 with labels offset 0.8,0.4 left font ',7' notitle
