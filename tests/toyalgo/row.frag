	[CCS_ALGO_STAR] = { "star", { NULL }, -1, 1u << CCS_COLL_ALLREDUCE, "star applies to AllReduce", CCS_ALGO_MEM_KERNEL, 0 },
