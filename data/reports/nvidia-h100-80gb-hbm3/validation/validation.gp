# perfmodel validate — measured vs predicted kernel time, one point style per kernel family.
# Data: predictions.csv (family = column 2, measured_s = 6, predicted_s = 8). Restyle freely.
set datafile separator ','
set grid lc rgb '#dddddd'
set logscale xy 10
set format x '10^{%L}'
set format y '10^{%L}'
set xlabel 'measured time (s)'
set ylabel 'predicted time (s)'
set key top left font ',9' samplen 2
set title "GPU kernel time, NVIDIA H100 80GB HBM3: median |error| 6.4 %, p90 19.0 % (423 runs)" font ',12'
plot x with lines lc rgb '#000000' dt 1 title 'predicted = measured', \
     1.2*x with lines lc rgb '#888888' dt 2 title '±20 %', 0.8*x with lines lc rgb '#888888' dt 2 notitle, \
     'predictions.csv' skip 1 using (strcol(2) eq 'blur' ? $6 : 1/0):8 with points pt 1 ps 0.8 lc rgb '#000000' title 'blur', \
     'predictions.csv' skip 1 using (strcol(2) eq 'cg' ? $6 : 1/0):8 with points pt 2 ps 0.8 lc rgb '#555555' title 'cg', \
     'predictions.csv' skip 1 using (strcol(2) eq 'cholesky' ? $6 : 1/0):8 with points pt 3 ps 0.8 lc rgb '#000000' title 'cholesky', \
     'predictions.csv' skip 1 using (strcol(2) eq 'conv2d' ? $6 : 1/0):8 with points pt 4 ps 0.8 lc rgb '#555555' title 'conv2d', \
     'predictions.csv' skip 1 using (strcol(2) eq 'cosine' ? $6 : 1/0):8 with points pt 5 ps 0.8 lc rgb '#000000' title 'cosine', \
     'predictions.csv' skip 1 using (strcol(2) eq 'dot' ? $6 : 1/0):8 with points pt 6 ps 0.8 lc rgb '#555555' title 'dot', \
     'predictions.csv' skip 1 using (strcol(2) eq 'mm' ? $6 : 1/0):8 with points pt 7 ps 0.8 lc rgb '#000000' title 'mm', \
     'predictions.csv' skip 1 using (strcol(2) eq 'mv' ? $6 : 1/0):8 with points pt 8 ps 0.8 lc rgb '#555555' title 'mv', \
     'predictions.csv' skip 1 using (strcol(2) eq 'sgemm' ? $6 : 1/0):8 with points pt 9 ps 0.8 lc rgb '#000000' title 'sgemm'
