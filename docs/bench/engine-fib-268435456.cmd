ndnfwd bench engine --pit-capacity 262144 --cs-capacity 262144 --runs 3 --json --fib-entries 268435456 --prefetch speculative
