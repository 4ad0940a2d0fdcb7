// Ticket lock and test-and-test-and-set lock on cuda::atomic_ref (issue 26).
// Each block increments count once inside the lock.
#include <cuda/atomic>
__global__ void ticket_lock(int *next, int *serving, int *count) {
  cuda::atomic_ref<int, cuda::thread_scope_device> n(*next), s(*serving);
  int my = n.fetch_add(1, cuda::memory_order_relaxed);
  while (s.load(cuda::memory_order_acquire) != my) { }
  *count = *count + 1;
  s.store(my + 1, cuda::memory_order_release);
}
__global__ void ttas_lock(int *lock, int *count) {
  cuda::atomic_ref<int, cuda::thread_scope_device> l(*lock);
  for (;;) {
    while (l.load(cuda::memory_order_relaxed) != 0) { }
    if (l.exchange(1, cuda::memory_order_acquire) == 0) break;
  }
  *count = *count + 1;
  l.store(0, cuda::memory_order_release);
}
// The same spin lock at block scope, used by two CTAs: not mutual exclusion.
__global__ void lock_block_scope(int *lock, int *count) {
  cuda::atomic_ref<int, cuda::thread_scope_block> l(*lock);
  while (l.exchange(1, cuda::memory_order_acquire) != 0) { }
  *count = *count + 1;
  l.store(0, cuda::memory_order_release);
}
