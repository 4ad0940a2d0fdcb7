// CAS spin lock with acquire/release (libcu++), critical section increments count.
#include <cuda/atomic>
__global__ void lock_gpu(int *lock, int *count) {
  cuda::atomic_ref<int, cuda::thread_scope_device> l(*lock);
  int expected = 0;
  while (!l.compare_exchange_weak(expected, 1, cuda::memory_order_acquire, cuda::memory_order_relaxed)) {
    expected = 0;
  }
  *count = *count + 1;
  l.store(0, cuda::memory_order_release);
}
// Flag wait loop: block 1 spins until it sees the flag, then reads data.
__global__ void flag_wait(int *data, int *flag, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  if (blockIdx.x == 0) {
    *data = 42;
    f.store(1, cuda::memory_order_release);
  } else {
    while (f.load(cuda::memory_order_acquire) == 0) { }
    out[1] = *data;
  }
}
