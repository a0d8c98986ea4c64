ndnfwd bench fib --workload so --entries 1048576 --names 262144 --algo all --prefetch both --runs 3 --json
