# perfmodel plot cpu — CPU bandwidth vs working set, one line per thread count.
# Data: cpu_bandwidth.csv (kind,threads,working_set_bytes,Bps), cpu_plateaus.csv. Restyle freely.
set datafile separator ','
set grid lc rgb '#dddddd'
set logscale x 2
set format x '%.0b%B'
set logscale y 10
set xlabel 'working set (all threads)'
set ylabel 'GB/s (10^9 B/s)'
set key top right font ',8' samplen 2
set multiplot layout 2,2 title "CPU bandwidth: Intel(R) Xeon(R) Processor, 16 CPUs (2026-11-23)" font ',13'
set title 'read' font ',11'
plot 'cpu_bandwidth.csv' using 3:((strcol(1) eq 'read' && $2 == 1) ? $4/1e9 : 1/0) with linespoints pt 4 ps 0.5 dt 1 lc rgb '#333333' title '1 thread', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'read' && $2 == 2) ? $4/1e9 : 1/0) with linespoints pt 5 ps 0.5 dt 2 lc rgb '#333333' title '2 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'read' && $2 == 4) ? $4/1e9 : 1/0) with linespoints pt 6 ps 0.5 dt 3 lc rgb '#333333' title '4 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'read' && $2 == 8) ? $4/1e9 : 1/0) with linespoints pt 7 ps 0.5 dt 4 lc rgb '#333333' title '8 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'read' && $2 == 16) ? $4/1e9 : 1/0) with linespoints pt 8 ps 0.5 dt 1 lc rgb '#333333' title '16 threads', \
     'cpu_plateaus.csv' using 3:($5/1e9):($4-$3):(0) with vectors nohead lw 3 lc rgb '#000000' title 'plateaus'
set title 'write' font ',11'
plot 'cpu_bandwidth.csv' using 3:((strcol(1) eq 'write' && $2 == 1) ? $4/1e9 : 1/0) with linespoints pt 4 ps 0.5 dt 1 lc rgb '#333333' title '1 thread', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'write' && $2 == 2) ? $4/1e9 : 1/0) with linespoints pt 5 ps 0.5 dt 2 lc rgb '#333333' title '2 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'write' && $2 == 4) ? $4/1e9 : 1/0) with linespoints pt 6 ps 0.5 dt 3 lc rgb '#333333' title '4 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'write' && $2 == 8) ? $4/1e9 : 1/0) with linespoints pt 7 ps 0.5 dt 4 lc rgb '#333333' title '8 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'write' && $2 == 16) ? $4/1e9 : 1/0) with linespoints pt 8 ps 0.5 dt 1 lc rgb '#333333' title '16 threads'
set title 'copy' font ',11'
plot 'cpu_bandwidth.csv' using 3:((strcol(1) eq 'copy' && $2 == 1) ? $4/1e9 : 1/0) with linespoints pt 4 ps 0.5 dt 1 lc rgb '#333333' title '1 thread', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'copy' && $2 == 2) ? $4/1e9 : 1/0) with linespoints pt 5 ps 0.5 dt 2 lc rgb '#333333' title '2 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'copy' && $2 == 4) ? $4/1e9 : 1/0) with linespoints pt 6 ps 0.5 dt 3 lc rgb '#333333' title '4 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'copy' && $2 == 8) ? $4/1e9 : 1/0) with linespoints pt 7 ps 0.5 dt 4 lc rgb '#333333' title '8 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'copy' && $2 == 16) ? $4/1e9 : 1/0) with linespoints pt 8 ps 0.5 dt 1 lc rgb '#333333' title '16 threads'
set title 'triad' font ',11'
plot 'cpu_bandwidth.csv' using 3:((strcol(1) eq 'triad' && $2 == 1) ? $4/1e9 : 1/0) with linespoints pt 4 ps 0.5 dt 1 lc rgb '#333333' title '1 thread', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'triad' && $2 == 2) ? $4/1e9 : 1/0) with linespoints pt 5 ps 0.5 dt 2 lc rgb '#333333' title '2 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'triad' && $2 == 4) ? $4/1e9 : 1/0) with linespoints pt 6 ps 0.5 dt 3 lc rgb '#333333' title '4 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'triad' && $2 == 8) ? $4/1e9 : 1/0) with linespoints pt 7 ps 0.5 dt 4 lc rgb '#333333' title '8 threads', \
     'cpu_bandwidth.csv' using 3:((strcol(1) eq 'triad' && $2 == 16) ? $4/1e9 : 1/0) with linespoints pt 8 ps 0.5 dt 1 lc rgb '#333333' title '16 threads'
unset multiplot
