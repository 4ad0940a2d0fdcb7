// A timed semaphore acquire (issue 26): try_acquire_for polls until it gets
// the unit or the time runs out. Block 0 writes data and releases; block 1
// tries for a microsecond: if it got the unit, the data must be there.
#include <cuda/semaphore>
#include <cuda/std/chrono>
__global__ void sem_try_for(int *data, cuda::binary_semaphore<cuda::thread_scope_device> *sem, int *out) {
  if (blockIdx.x == 0) {
    *data = 42;
    sem->release();
  } else {
    out[0] = sem->try_acquire_for(cuda::std::chrono::microseconds(1));
    out[1] = *data;
  }
}
