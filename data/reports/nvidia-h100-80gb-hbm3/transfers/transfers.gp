# perfmodel plot transfers — measured vs predicted host<->device copies.
# Data: transfers.csv (measured typical times: interquartile means), transfers_model.csv (model). Restyle freely.
set datafile separator ','
set logscale x 2
set format x '%.0b%B'
set xtics 16 font ',9'
set grid xtics ytics lc rgb '#dddddd'
set key top left font ',9' samplen 2
set multiplot layout 5,2 title "Host<->device copies: NVIDIA H100 80GB HBM3 (2026-11-23)" font ',13'

# h2d/pinned
set title 'h2d/pinned: time per copy' font ',11'
set logscale y 10
set format y '10^{%L}'
set ylabel 'time (s)'
set xlabel 'bytes per copy'
plot 'transfers_model.csv' using 2:(strcol(1) eq 'h2d/pinned' ? $3 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \
     'transfers.csv' using 2:(strcol(1) eq 'h2d/pinned' ? (strcol(3) eq 'fit' ? $4 : 1/0) : 1/0):5:6 with yerrorbars pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \
     'transfers.csv' using 2:(strcol(1) eq 'h2d/pinned' ? (strcol(3) eq 'holdout' ? $4 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'
set title 'h2d/pinned: effective bandwidth' font ',11'
unset logscale y
set format y '%g'
set ylabel 'GB/s (10^9 B/s)'
plot 'transfers_model.csv' using 2:(strcol(1) eq 'h2d/pinned' ? $4/1e9 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \
     'transfers.csv' using 2:(strcol(1) eq 'h2d/pinned' ? (strcol(3) eq 'fit' ? $7/1e9 : 1/0) : 1/0) with points pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \
     'transfers.csv' using 2:(strcol(1) eq 'h2d/pinned' ? (strcol(3) eq 'holdout' ? $7/1e9 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'

# h2d/pageable
set title 'h2d/pageable: time per copy' font ',11'
set logscale y 10
set format y '10^{%L}'
set ylabel 'time (s)'
set xlabel 'bytes per copy'
plot 'transfers_model.csv' using 2:(strcol(1) eq 'h2d/pageable' ? $3 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \
     'transfers.csv' using 2:(strcol(1) eq 'h2d/pageable' ? (strcol(3) eq 'fit' ? $4 : 1/0) : 1/0):5:6 with yerrorbars pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \
     'transfers.csv' using 2:(strcol(1) eq 'h2d/pageable' ? (strcol(3) eq 'holdout' ? $4 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'
set title 'h2d/pageable: effective bandwidth' font ',11'
unset logscale y
set format y '%g'
set ylabel 'GB/s (10^9 B/s)'
plot 'transfers_model.csv' using 2:(strcol(1) eq 'h2d/pageable' ? $4/1e9 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \
     'transfers.csv' using 2:(strcol(1) eq 'h2d/pageable' ? (strcol(3) eq 'fit' ? $7/1e9 : 1/0) : 1/0) with points pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \
     'transfers.csv' using 2:(strcol(1) eq 'h2d/pageable' ? (strcol(3) eq 'holdout' ? $7/1e9 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'

# d2h/pinned
set title 'd2h/pinned: time per copy' font ',11'
set logscale y 10
set format y '10^{%L}'
set ylabel 'time (s)'
set xlabel 'bytes per copy'
plot 'transfers_model.csv' using 2:(strcol(1) eq 'd2h/pinned' ? $3 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \
     'transfers.csv' using 2:(strcol(1) eq 'd2h/pinned' ? (strcol(3) eq 'fit' ? $4 : 1/0) : 1/0):5:6 with yerrorbars pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \
     'transfers.csv' using 2:(strcol(1) eq 'd2h/pinned' ? (strcol(3) eq 'holdout' ? $4 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'
set title 'd2h/pinned: effective bandwidth' font ',11'
unset logscale y
set format y '%g'
set ylabel 'GB/s (10^9 B/s)'
plot 'transfers_model.csv' using 2:(strcol(1) eq 'd2h/pinned' ? $4/1e9 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \
     'transfers.csv' using 2:(strcol(1) eq 'd2h/pinned' ? (strcol(3) eq 'fit' ? $7/1e9 : 1/0) : 1/0) with points pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \
     'transfers.csv' using 2:(strcol(1) eq 'd2h/pinned' ? (strcol(3) eq 'holdout' ? $7/1e9 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'

# d2h/pageable
set title 'd2h/pageable: time per copy' font ',11'
set logscale y 10
set format y '10^{%L}'
set ylabel 'time (s)'
set xlabel 'bytes per copy'
plot 'transfers_model.csv' using 2:(strcol(1) eq 'd2h/pageable' ? $3 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \
     'transfers.csv' using 2:(strcol(1) eq 'd2h/pageable' ? (strcol(3) eq 'fit' ? $4 : 1/0) : 1/0):5:6 with yerrorbars pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \
     'transfers.csv' using 2:(strcol(1) eq 'd2h/pageable' ? (strcol(3) eq 'holdout' ? $4 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'
set title 'd2h/pageable: effective bandwidth' font ',11'
unset logscale y
set format y '%g'
set ylabel 'GB/s (10^9 B/s)'
plot 'transfers_model.csv' using 2:(strcol(1) eq 'd2h/pageable' ? $4/1e9 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \
     'transfers.csv' using 2:(strcol(1) eq 'd2h/pageable' ? (strcol(3) eq 'fit' ? $7/1e9 : 1/0) : 1/0) with points pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \
     'transfers.csv' using 2:(strcol(1) eq 'd2h/pageable' ? (strcol(3) eq 'holdout' ? $7/1e9 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'

# bidir/pinned
set title 'bidir/pinned: time per copy' font ',11'
set logscale y 10
set format y '10^{%L}'
set ylabel 'time (s)'
set xlabel 'bytes per copy'
plot 'transfers_model.csv' using 2:(strcol(1) eq 'bidir/pinned' ? $3 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \
     'transfers.csv' using 2:(strcol(1) eq 'bidir/pinned' ? (strcol(3) eq 'fit' ? $4 : 1/0) : 1/0):5:6 with yerrorbars pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \
     'transfers.csv' using 2:(strcol(1) eq 'bidir/pinned' ? (strcol(3) eq 'holdout' ? $4 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'
set title 'bidir/pinned: effective bandwidth' font ',11'
unset logscale y
set format y '%g'
set ylabel 'GB/s (10^9 B/s)'
plot 'transfers_model.csv' using 2:(strcol(1) eq 'bidir/pinned' ? $4/1e9 : 1/0) with lines lw 2 lc rgb '#000000' title 'model', \
     'transfers.csv' using 2:(strcol(1) eq 'bidir/pinned' ? (strcol(3) eq 'fit' ? $7/1e9 : 1/0) : 1/0) with points pt 6 ps 0.7 lc rgb '#555555' title 'measured (fit sizes)', \
     'transfers.csv' using 2:(strcol(1) eq 'bidir/pinned' ? (strcol(3) eq 'holdout' ? $7/1e9 : 1/0) : 1/0) with points pt 9 ps 0.8 lc rgb '#222222' title 'measured (held-out sizes)'
unset multiplot
