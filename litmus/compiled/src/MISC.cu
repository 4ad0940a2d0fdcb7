#include <cuda/atomic>
// Load buffering: plain, and with a data dependency.
__global__ void lb_relaxed(int *x, int *y, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> X(*x), Y(*y);
  if (blockIdx.x == 0) {
    out[0] = X.load(cuda::memory_order_relaxed);
    Y.store(1, cuda::memory_order_relaxed);
  } else {
    out[1] = Y.load(cuda::memory_order_relaxed);
    X.store(1, cuda::memory_order_relaxed);
  }
}
__global__ void lb_data(int *x, int *y, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> X(*x), Y(*y);
  if (blockIdx.x == 0) {
    int r = X.load(cuda::memory_order_relaxed);
    out[0] = r;
    Y.store(r, cuda::memory_order_relaxed);
  } else {
    int r = Y.load(cuda::memory_order_relaxed);
    out[1] = r;
    X.store(r, cuda::memory_order_relaxed);
  }
}
// IRIW at system scope: blocks 0 and 1 write x and y; blocks 2 and 3 read both.
template <cuda::memory_order MO>
__device__ void iriw_body(int *x, int *y, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_system> X(*x), Y(*y);
  switch (blockIdx.x) {
    case 0: X.store(1, cuda::memory_order_seq_cst); break;
    case 1: Y.store(1, cuda::memory_order_seq_cst); break;
    case 2: out[0] = X.load(MO); out[1] = Y.load(MO); break;
    default: out[2] = Y.load(MO); out[3] = X.load(MO); break;
  }
}
__global__ void iriw_acq(int *x, int *y, int *out) { iriw_body<cuda::memory_order_acquire>(x, y, out); }
__global__ void iriw_sc(int *x, int *y, int *out) { iriw_body<cuda::memory_order_seq_cst>(x, y, out); }
// CoRR: one writer, one reader reading twice.
__global__ void corr(int *x, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> X(*x);
  if (blockIdx.x == 0) {
    X.store(1, cuda::memory_order_relaxed);
  } else {
    out[0] = X.load(cuda::memory_order_relaxed);
    out[1] = X.load(cuda::memory_order_relaxed);
  }
}
// MP through __shared__ memory inside one CTA, ordered by __syncthreads().
__global__ void mp_shared(int *out) {
  __shared__ int data;
  if (threadIdx.x == 0) data = 0;
  __syncthreads();
  if (threadIdx.x == 0) data = 1;
  __syncthreads();
  if (threadIdx.x == 1) out[0] = data;
}
