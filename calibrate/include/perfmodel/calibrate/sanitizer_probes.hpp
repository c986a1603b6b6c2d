#pragma once
// The microbenchmark kernels that use shared memory, each run once on a small grid and checked:
// what compute-sanitizer's racecheck runs (it instruments every shared-memory access, and the
// calibration's own grids and loop counts would take hours under it). GPU builds only.

namespace perfmodel {

// Runs shared_conflict_loads (4- and 8-byte words, degrees 1, 3 and the widest), shared_stores and
// the block reduction every memory benchmark ends with, on 2 blocks of 1024 threads; throws
// RuntimeFailure when a result is wrong.
void run_shared_memory_kernels_once();

}  // namespace perfmodel
