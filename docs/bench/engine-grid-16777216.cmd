ndnfwd bench engine --runs 3 --json --pit-capacity 1048576 --cs-capacity 1048576 --fib-entries 16777216 --m 4 --algo all --prefetch all --workers 1,2
