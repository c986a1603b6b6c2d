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
set title "Roofline: NVIDIA H100 80GB HBM3 (measured 2026-11-22)" font ',12'
mn(a,b) = a < b ? a : b
b_dram = 3113.52241
b_l2 = 8648.04954
b_shared = 33243.4065
b_pcie = 55.2718888
plot mn(63642.4587, b_dram*x) with lines lw 2 dt 1 lc rgb '#000000' title 'dram 3114 GB/s', \
     mn(63642.4587, 3352.32*x) with lines lw 1 dt 2 lc rgb '#aaaaaa' notitle, \
     mn(63642.4587, b_l2*x) with lines lw 2 dt 2 lc rgb '#000000' title 'l2 8648 GB/s', \
     mn(63642.4587, b_shared*x) with lines lw 2 dt 3 lc rgb '#000000' title 'shared 33243 GB/s', \
     mn(63642.4587, 33454.08*x) with lines lw 1 dt 2 lc rgb '#aaaaaa' notitle, \
     mn(63642.4587, b_pcie*x) with lines lw 2 dt 4 lc rgb '#000000' title 'pcie 55 GB/s', \
     (x >= 20.4406618 ? 63642.4587 : 1/0) with lines lw 2 lc rgb '#444444' title 'fp32 63.6 Tflop/s', \
     66908.16 with lines lw 1 dt 2 lc rgb '#aaaaaa' title 'fp32 datasheet', \
     (x >= 10.6157564 ? 33052.3955 : 1/0) with lines lw 2 lc rgb '#444444' title 'fp64 33.1 Tflop/s', \
     33454.08 with lines lw 1 dt 2 lc rgb '#aaaaaa' title 'fp64 datasheet', \
     (x >= 21.2153861 ? 66054.5801 : 1/0) with lines lw 2 lc rgb '#444444' title 'fp16 66.1 Tflop/s', \
     133816.32 with lines lw 1 dt 2 lc rgb '#aaaaaa' title 'fp16 datasheet', \
     'points.csv' skip 1 using 3:($4/1e9):(0):(($5-$4)/1e9) with vectors nohead lw 1 lc rgb '#666666' notitle, \
     'points.csv' skip 1 using 3:($4/1e9) with points pt 7 ps 1.0 lc rgb '#000000' title 'measured (validation run)', \
     'points.csv' skip 1 using 3:($5/1e9) with points pt 6 ps 1.3 lc rgb '#000000' title 'predicted', \
     'points.csv' skip 1 using 3:($4/1e9):1 with labels offset 0.8,0.4 left font ',7' notitle
