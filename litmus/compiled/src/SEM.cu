// libcu++ synchronization objects handing data over (issue 26): semaphores,
// cuda::std::atomic_flag and atomic::wait/notify. Block 0 writes data and
// signals, block 1 waits and reads; out[1] is what the reader sees.
#include <cuda/semaphore>
#include <cuda/atomic>
#include <cuda/std/atomic>
// binary_semaphore created taken (count 0): release hands it over.
__global__ void sem_binary(int *data, cuda::binary_semaphore<cuda::thread_scope_device> *sem, int *out) {
  if (blockIdx.x == 0) {
    *data = 42;
    sem->release();
  } else {
    sem->acquire();
    out[1] = *data;
  }
}
// counting_semaphore: the writer releases two units, the reader takes one.
__global__ void sem_counting(int *data, cuda::counting_semaphore<cuda::thread_scope_device, 4> *sem, int *out) {
  if (blockIdx.x == 0) {
    *data = 42;
    sem->release(2);
  } else {
    sem->acquire();
    out[1] = *data;
  }
}
// try_acquire, no waiting: if it succeeds the data must be there.
__global__ void sem_try(int *data, cuda::binary_semaphore<cuda::thread_scope_device> *sem, int *out) {
  if (blockIdx.x == 0) {
    *data = 42;
    sem->release();
  } else {
    out[0] = sem->try_acquire();
    out[1] = *data;
  }
}
// atomic_flag: test_and_set(release) then notify; the reader waits until set.
__global__ void flag_notify(int *data, cuda::std::atomic_flag *flag, int *out) {
  if (blockIdx.x == 0) {
    *data = 42;
    flag->test_and_set(cuda::std::memory_order_release);
    flag->notify_all();
  } else {
    flag->wait(false, cuda::std::memory_order_acquire);
    out[1] = *data;
  }
}
// cuda::atomic<int>::wait / notify_one.
__global__ void atomic_wait(int *data, cuda::atomic<int, cuda::thread_scope_device> *flag, int *out) {
  if (blockIdx.x == 0) {
    *data = 42;
    flag->store(1, cuda::std::memory_order_release);
    flag->notify_one();
  } else {
    flag->wait(0, cuda::std::memory_order_acquire);
    out[1] = *data;
  }
}
// Lock on atomic_flag: test_and_set(acquire) spin, clear(release).
__global__ void flag_lock(cuda::std::atomic_flag *lock, int *count) {
  while (lock->test_and_set(cuda::std::memory_order_acquire)) { }
  *count = *count + 1;
  lock->clear(cuda::std::memory_order_release);
}
