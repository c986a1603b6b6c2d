# perfmodel plot microbench — GPU microbenchmarks, measured (points) and fitted (lines).
# Data: microbench_*.csv next to this script. Restyle freely.
set datafile separator ','
set grid lc rgb '#dddddd'
set key font ',9' samplen 2
set multiplot layout 3,2 title "GPU microbenchmarks: NVIDIA H100 80GB HBM3 (2026-11-23)" font ',13'

# 1. DRAM bandwidth vs bytes in flight
set title 'DRAM read bandwidth vs bytes in flight' font ',11'
set logscale x 2
set format x '%.0b%B'
set xlabel 'bytes in flight (SMs x warps x min(ILP, limit) x 256 B)'
set ylabel 'TB/s'
set key bottom right
plot 'microbench_concurrency_model.csv' using 1:($2/1e12) with lines lw 2 lc rgb '#000000' title 'fitted saturation curve', \
     'microbench_concurrency.csv' using 3:(strcol(5) eq 'fit' ? $4/1e12 : 1/0) with points pt 6 ps 0.6 lc rgb '#555555' title 'measured (fit)', \
     'microbench_concurrency.csv' using 3:(strcol(5) eq 'holdout' ? $4/1e12 : 1/0) with points pt 9 ps 0.7 lc rgb '#222222' title 'measured (held out)'

# 2. bank conflicts
set title 'shared memory: time per warp access vs conflict degree' font ',11'
unset logscale x
set format x '%g'
set xlabel 'conflict degree (distinct words per bank; 8-byte: per half-warp)'
set ylabel 'ns per warp access per SM'
set key top left
plot 'microbench_conflicts.csv' using 2:(($1==4) ? $3*1e9 : 1/0) with points pt 6 ps 0.7 lc rgb '#333333' title '4-byte words', \
     'microbench_conflicts.csv' using 2:(($1==4) ? $4*1e9 : 1/0) with lines lw 1 lc rgb '#000000' title '4-byte line fit', \
     'microbench_conflicts.csv' using 2:(($1==8) ? $3*1e9 : 1/0) with points pt 9 ps 0.7 lc rgb '#777777' title '8-byte words', \
     'microbench_conflicts.csv' using 2:(($1==8) ? $4*1e9 : 1/0) with lines lw 1 dt 2 lc rgb '#000000' title '8-byte line fit'

# 3. strided access
set title 'strided 4-byte reads: useful-byte efficiency' font ',11'
set xlabel 'stride (elements)'
set ylabel 'efficiency vs stride 1'
set logscale y 2
set key top right
plot 'microbench_strided.csv' using 1:4 with linespoints pt 6 ps 0.7 lc rgb '#333333' title 'measured', \
     'microbench_strided.csv' using 1:5 with lines lw 2 dt 2 lc rgb '#000000' title '32-B sector model (4 / sectors per request)'
unset logscale y

# 4. partition camping
set title 'partition/channel camping: bandwidth vs slots used' font ',11'
set logscale x 2
set format x '%g'
set xlabel 'slots of the period used (1 = all chunks camped on one)'
set ylabel 'TB/s'
set key bottom right font ',7'
set yrange [0:*]
cases = "G256B/S4KiB G256B/S32KiB G1KiB/S16KiB G1KiB/S128KiB G4KiB/S64KiB G4KiB/S512KiB G32KiB/S512KiB G32KiB/S4MiB "
plot for [i=0:7] 'microbench_partition.csv' using 4:(($1==i) ? $5/1e12 : 1/0) with linespoints pt (i%7)+4 ps 0.6 lc rgb '#333333' title word(cases, i+1)
set yrange [*:*]

# 5. hierarchy
set title 'read bandwidth vs working set' font ',11'
set logscale x 2
set format x '%.0b%B'
set xlabel 'working set'
set ylabel 'TB/s'
unset key
set arrow 1 from 52428800, graph 0 to 52428800, graph 1 nohead dt 3 lc rgb '#888888'
plot 'microbench_hierarchy.csv' using 1:($2/1e12) with linespoints pt 6 ps 0.7 lc rgb '#000000'

# 6. latency
set title 'dependent-load latency (pointer chase) vs footprint' font ',11'
set xlabel 'footprint (random 128-byte lines)'
set ylabel 'ns'
set logscale y 10
plot 'microbench_latency.csv' using 1:($2*1e9) with linespoints pt 6 ps 0.7 lc rgb '#000000'
unset arrow 1
unset logscale
unset multiplot
