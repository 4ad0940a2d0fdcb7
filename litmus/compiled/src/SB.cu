// Store buffering: block 0 stores x, loads y; block 1 stores y, loads x.
#include <cuda/atomic>
__global__ void sb_seq_cst(int *x, int *y, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> X(*x), Y(*y);
  if (blockIdx.x == 0) {
    X.store(1, cuda::memory_order_seq_cst);
    out[0] = Y.load(cuda::memory_order_seq_cst);
  } else {
    Y.store(1, cuda::memory_order_seq_cst);
    out[1] = X.load(cuda::memory_order_seq_cst);
  }
}
__global__ void sb_fences(int *x, int *y, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> X(*x), Y(*y);
  if (blockIdx.x == 0) {
    X.store(1, cuda::memory_order_relaxed);
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
    out[0] = Y.load(cuda::memory_order_relaxed);
  } else {
    Y.store(1, cuda::memory_order_relaxed);
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, cuda::thread_scope_device);
    out[1] = X.load(cuda::memory_order_relaxed);
  }
}
