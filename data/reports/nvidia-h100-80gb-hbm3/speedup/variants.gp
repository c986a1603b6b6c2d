# perfmodel plot speedup — S0's stepwise comparison: effective bandwidth (algorithmic bytes / time)
# of each kernel variant over n. Data: variants.csv (family,kernel,n,measured,predicted). Restyle freely.
set datafile separator ','
set grid lc rgb '#e5e5e5'
set logscale xy 10
set format y '%g'
set xlabel 'n (matrix order / image side)'
set ylabel 'effective bandwidth (GB/s, S0 units)'
set key outside right font ',8' samplen 2
set multiplot layout 3,1 title "Kernel variants on NVIDIA H100 80GB HBM3" font ',12'
set title 'mv: measured (points) and predicted (lines)' font ',10'
plot 'variants.csv' skip 1 using (strcol(2) eq 'mv-global' ? $3 : 1/0):($5/1e9) with lines dt 1 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'mv-global' ? $3 : 1/0):($4/1e9) with points pt 4 ps 0.8 lc rgb '#000000' title 'mv-global', \
     'variants.csv' skip 1 using (strcol(2) eq 'mv-constant' ? $3 : 1/0):($5/1e9) with lines dt 2 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'mv-constant' ? $3 : 1/0):($4/1e9) with points pt 6 ps 0.8 lc rgb '#000000' title 'mv-constant', \
     'variants.csv' skip 1 using (strcol(2) eq 'mv-shared' ? $3 : 1/0):($5/1e9) with lines dt 3 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'mv-shared' ? $3 : 1/0):($4/1e9) with points pt 8 ps 0.8 lc rgb '#000000' title 'mv-shared', \
     'variants.csv' skip 1 using (strcol(2) eq 'mv-opt' ? $3 : 1/0):($5/1e9) with lines dt 4 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'mv-opt' ? $3 : 1/0):($4/1e9) with points pt 10 ps 0.8 lc rgb '#000000' title 'mv-opt'
set title 'mm: measured (points) and predicted (lines)' font ',10'
plot 'variants.csv' skip 1 using (strcol(2) eq 'mm-global' ? $3 : 1/0):($5/1e9) with lines dt 1 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'mm-global' ? $3 : 1/0):($4/1e9) with points pt 4 ps 0.8 lc rgb '#000000' title 'mm-global', \
     'variants.csv' skip 1 using (strcol(2) eq 'matmul' ? $3 : 1/0):($5/1e9) with lines dt 2 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'matmul' ? $3 : 1/0):($4/1e9) with points pt 6 ps 0.8 lc rgb '#000000' title 'matmul', \
     'variants.csv' skip 1 using (strcol(2) eq 'mm-shared' ? $3 : 1/0):($5/1e9) with lines dt 3 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'mm-shared' ? $3 : 1/0):($4/1e9) with points pt 8 ps 0.8 lc rgb '#000000' title 'mm-shared', \
     'variants.csv' skip 1 using (strcol(2) eq 'mm-opt' ? $3 : 1/0):($5/1e9) with lines dt 4 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'mm-opt' ? $3 : 1/0):($4/1e9) with points pt 10 ps 0.8 lc rgb '#000000' title 'mm-opt', \
     'variants.csv' skip 1 using (strcol(2) eq 'sgemm-tiled' ? $3 : 1/0):($5/1e9) with lines dt 5 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'sgemm-tiled' ? $3 : 1/0):($4/1e9) with points pt 12 ps 0.8 lc rgb '#000000' title 'sgemm-tiled', \
     'variants.csv' skip 1 using (strcol(2) eq 'sgemm-256x16' ? $3 : 1/0):($5/1e9) with lines dt 1 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'sgemm-256x16' ? $3 : 1/0):($4/1e9) with points pt 14 ps 0.8 lc rgb '#000000' title 'sgemm-256x16', \
     'variants.csv' skip 1 using (strcol(2) eq 'sgemm-64' ? $3 : 1/0):($5/1e9) with lines dt 2 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'sgemm-64' ? $3 : 1/0):($4/1e9) with points pt 16 ps 0.8 lc rgb '#000000' title 'sgemm-64'
set title 'conv2d: measured (points) and predicted (lines)' font ',10'
plot 'variants.csv' skip 1 using (strcol(2) eq 'conv2d-global' ? $3 : 1/0):($5/1e9) with lines dt 1 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'conv2d-global' ? $3 : 1/0):($4/1e9) with points pt 4 ps 0.8 lc rgb '#000000' title 'conv2d-global', \
     'variants.csv' skip 1 using (strcol(2) eq 'conv2d-shared' ? $3 : 1/0):($5/1e9) with lines dt 2 lc rgb '#000000' notitle, 'variants.csv' skip 1 using (strcol(2) eq 'conv2d-shared' ? $3 : 1/0):($4/1e9) with points pt 6 ps 0.8 lc rgb '#000000' title 'conv2d-shared'
unset multiplot
