#!/bin/sh
# bpftrace's map (lines "@sizes[4096]: 123") to the CSV of kex crossovers --workload.
# Usage: sh to-csv.sh < sizes.txt > memcpy-sizes.csv
awk -F'[][]' 'BEGIN { print "size,count" } /^@sizes\[/ { sub(/^: */, "", $3); print $2 "," $3 }'
