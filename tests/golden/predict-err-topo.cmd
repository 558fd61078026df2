predict -c allreduce
