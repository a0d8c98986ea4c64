ndnfwd bench engine --pit-capacity 262144 --cs-capacity 262144 --runs 3 --json --fib-entries 1048576 --m 4 --algo all --prefetch all --workers 1,2
