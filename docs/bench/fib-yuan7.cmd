ndnfwd bench fib --workload yuan7 --entries 1048576 --names 262144 --algo all --prefetch both --runs 3 --json
