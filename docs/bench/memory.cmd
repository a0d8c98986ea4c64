ndnfwd bench memory --json
