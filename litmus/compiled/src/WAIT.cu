// cuda::std::atomic<int>::wait/notify_one, atomic_flag clear/wait, and
// binary_semaphore::try_acquire_until (issue 26). Block 0 writes data and
// signals, block 1 waits and reads; out[1] is what the reader sees.
#include <cuda/std/atomic>
#include <cuda/std/chrono>
#include <cuda/semaphore>
__global__ void std_atomic_wait(int *data, cuda::std::atomic<int> *flag, int *out) {
  if (blockIdx.x == 0) {
    *data = 42;
    flag->store(1, cuda::std::memory_order_release);
    flag->notify_one();
  } else {
    flag->wait(0, cuda::std::memory_order_acquire);
    out[1] = *data;
  }
}
// The flag starts set; the writer clears it, the reader waits while it is set.
__global__ void flag_clear_wait(int *data, cuda::std::atomic_flag *flag, int *out) {
  if (blockIdx.x == 0) {
    *data = 42;
    flag->clear(cuda::std::memory_order_release);
    flag->notify_one();
  } else {
    flag->wait(true, cuda::std::memory_order_acquire);
    out[1] = *data;
  }
}
__global__ void sem_try_until(int *data, cuda::binary_semaphore<cuda::thread_scope_device> *sem, int *out) {
  if (blockIdx.x == 0) {
    *data = 42;
    sem->release();
  } else {
    auto deadline = cuda::std::chrono::system_clock::now() + cuda::std::chrono::microseconds(10);
    out[0] = sem->try_acquire_until(deadline);
    out[1] = *data;
  }
}
