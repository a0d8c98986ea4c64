ndnfwd bench engine --runs 3 --json --pit-capacity 262144 --cs-capacity 262144 --fib-entries 1048576 --prefetch all
