# Shell helpers the benchmarks share; sourced, not run.
#
#   now            wall-clock seconds, with nanoseconds
#   min            the smallest number read from stdin, one a line
#   calc EXPR [N]  EXPR computed by awk, N decimals (2)

now() { date +%s.%N; }
min() { sort -g | head -n1; }
calc() { awk "BEGIN { printf \"%.${2:-2}f\", $1 }"; }
