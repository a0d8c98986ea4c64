ndnfwd bench engine --pit-capacity 262144 --cs-capacity 262144 --runs 3 --json --fib-entries 67108864 --prefetch speculative
