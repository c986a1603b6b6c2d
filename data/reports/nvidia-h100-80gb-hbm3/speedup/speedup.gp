# perfmodel plot speedup — CPU time / GPU time (kernel + host copies) over n, one panel per kernel.
# Data: speedup_predicted.csv, speedup_measured.csv, crossovers.csv. Restyle freely.
set datafile separator ','
set grid lc rgb '#e5e5e5'
set logscale xy 10
set format y '%g'
set ylabel 'speedup (CPU / GPU)'
set key top left font ',8' samplen 2
set multiplot layout 2,4 title "GPU (NVIDIA H100 80GB HBM3, kernel + pinned copies) vs its host CPU (Intel(R) Xeon(R) Processor, 16 CPUs)" font ',12'
set title 'mv (GPU: mv-opt)' font ',10'
set xlabel 'matrix order (n x n)' font ',8'
unset arrow
plot 1 with lines lc rgb '#aaaaaa' notitle, 'speedup_predicted.csv' skip 1 using (strcol(1) eq 'mv' ? $3 : 1/0):4 with lines lw 2 lc rgb '#000000' title 'predicted', 'speedup_measured.csv' skip 1 using (strcol(1) eq 'mv' ? $3 : 1/0):4 with points pt 7 ps 0.9 lc rgb '#000000' title 'measured'
set title 'mm (GPU: mm-opt)' font ',10'
set xlabel 'matrix order (n x n)' font ',8'
unset arrow
plot 1 with lines lc rgb '#aaaaaa' notitle, 'speedup_predicted.csv' skip 1 using (strcol(1) eq 'mm' ? $3 : 1/0):4 with lines lw 2 lc rgb '#000000' title 'predicted', 'speedup_measured.csv' skip 1 using (strcol(1) eq 'mm' ? $3 : 1/0):4 with points pt 7 ps 0.9 lc rgb '#000000' title 'measured'
set title 'dot (GPU: dot)' font ',10'
set xlabel 'vector length' font ',8'
unset arrow
plot 1 with lines lc rgb '#aaaaaa' notitle, 'speedup_predicted.csv' skip 1 using (strcol(1) eq 'dot' ? $3 : 1/0):4 with lines lw 2 lc rgb '#000000' title 'predicted', 'speedup_measured.csv' skip 1 using (strcol(1) eq 'dot' ? $3 : 1/0):4 with points pt 7 ps 0.9 lc rgb '#000000' title 'measured'
set title 'cg (GPU: cg)' font ',10'
set xlabel 'matrix order (n x n)' font ',8'
unset arrow
set arrow from 2005.17436, graph 0 to 2005.17436, graph 1 nohead dt 3 lc rgb '#555555'
plot 1 with lines lc rgb '#aaaaaa' notitle, 'speedup_predicted.csv' skip 1 using (strcol(1) eq 'cg' ? $3 : 1/0):4 with lines lw 2 lc rgb '#000000' title 'predicted', 'speedup_measured.csv' skip 1 using (strcol(1) eq 'cg' ? $3 : 1/0):4 with points pt 7 ps 0.9 lc rgb '#000000' title 'measured', 1/0 with lines dt 3 lc rgb '#555555' title 'crossover n = 2005'
set title 'cholesky (GPU: cholesky-opt)' font ',10'
set xlabel 'matrix order (n x n)' font ',8'
unset arrow
set arrow from 1440.79727, graph 0 to 1440.79727, graph 1 nohead dt 3 lc rgb '#555555'
plot 1 with lines lc rgb '#aaaaaa' notitle, 'speedup_predicted.csv' skip 1 using (strcol(1) eq 'cholesky' ? $3 : 1/0):4 with lines lw 2 lc rgb '#000000' title 'predicted', 'speedup_measured.csv' skip 1 using (strcol(1) eq 'cholesky' ? $3 : 1/0):4 with points pt 7 ps 0.9 lc rgb '#000000' title 'measured', 1/0 with lines dt 3 lc rgb '#555555' title 'crossover n = 1441'
set title 'conv2d (GPU: conv2d-shared)' font ',10'
set xlabel 'image side (n x n)' font ',8'
unset arrow
plot 1 with lines lc rgb '#aaaaaa' notitle, 'speedup_predicted.csv' skip 1 using (strcol(1) eq 'conv2d' ? $3 : 1/0):4 with lines lw 2 lc rgb '#000000' title 'predicted', 'speedup_measured.csv' skip 1 using (strcol(1) eq 'conv2d' ? $3 : 1/0):4 with points pt 7 ps 0.9 lc rgb '#000000' title 'measured'
set title 'blur (GPU: blur)' font ',10'
set xlabel 'image side (n x n)' font ',8'
unset arrow
plot 1 with lines lc rgb '#aaaaaa' notitle, 'speedup_predicted.csv' skip 1 using (strcol(1) eq 'blur' ? $3 : 1/0):4 with lines lw 2 lc rgb '#000000' title 'predicted', 'speedup_measured.csv' skip 1 using (strcol(1) eq 'blur' ? $3 : 1/0):4 with points pt 7 ps 0.9 lc rgb '#000000' title 'measured'
set title 'cosine (GPU: cosine)' font ',10'
set xlabel 'vector length' font ',8'
unset arrow
plot 1 with lines lc rgb '#aaaaaa' notitle, 'speedup_predicted.csv' skip 1 using (strcol(1) eq 'cosine' ? $3 : 1/0):4 with lines lw 2 lc rgb '#000000' title 'predicted', 'speedup_measured.csv' skip 1 using (strcol(1) eq 'cosine' ? $3 : 1/0):4 with points pt 7 ps 0.9 lc rgb '#000000' title 'measured'
unset multiplot
