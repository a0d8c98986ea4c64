ndnfwd bench e2e --duration 3 --pin --rounds 5
