// cuda::atomic_thread_fence at each scope and order (issue 26), between relaxed
// cuda::atomic_ref accesses. The writer is the thread with
// blockIdx.x + threadIdx.x == 0 (two CTAs, or two threads of one CTA).
#include <cuda/atomic>
template <cuda::thread_scope S, cuda::memory_order W, cuda::memory_order R>
__device__ void mp_fence(int *data, int *flag, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_system> d(*data), f(*flag);
  if (blockIdx.x + threadIdx.x == 0) {
    d.store(1, cuda::memory_order_relaxed);
    cuda::atomic_thread_fence(W, S);
    f.store(1, cuda::memory_order_relaxed);
  } else {
    out[2] = f.load(cuda::memory_order_relaxed);
    cuda::atomic_thread_fence(R, S);
    out[3] = d.load(cuda::memory_order_relaxed);
  }
}
__global__ void fence_block(int *d, int *f, int *o) {
  mp_fence<cuda::thread_scope_block, cuda::memory_order_release, cuda::memory_order_acquire>(d, f, o);
}
__global__ void fence_device(int *d, int *f, int *o) {
  mp_fence<cuda::thread_scope_device, cuda::memory_order_release, cuda::memory_order_acquire>(d, f, o);
}
__global__ void fence_system(int *d, int *f, int *o) {
  mp_fence<cuda::thread_scope_system, cuda::memory_order_release, cuda::memory_order_acquire>(d, f, o);
}
__global__ void fence_seq_cst(int *d, int *f, int *o) {
  mp_fence<cuda::thread_scope_device, cuda::memory_order_seq_cst, cuda::memory_order_seq_cst>(d, f, o);
}
// Only the writer fences: the reader's relaxed loads may still be reordered.
__global__ void fence_writer_only(int *d, int *f, int *o) {
  mp_fence<cuda::thread_scope_device, cuda::memory_order_release, cuda::memory_order_relaxed>(d, f, o);
}
// Store buffering with seq_cst fences at block scope across CTAs.
template <cuda::thread_scope S>
__device__ void sb_fence(int *x, int *y, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_system> X(*x), Y(*y);
  if (blockIdx.x + threadIdx.x == 0) {
    X.store(1, cuda::memory_order_relaxed);
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, S);
    out[0] = Y.load(cuda::memory_order_relaxed);
  } else {
    Y.store(1, cuda::memory_order_relaxed);
    cuda::atomic_thread_fence(cuda::memory_order_seq_cst, S);
    out[1] = X.load(cuda::memory_order_relaxed);
  }
}
__global__ void sb_fence_block(int *x, int *y, int *o) { sb_fence<cuda::thread_scope_block>(x, y, o); }
__global__ void sb_fence_system(int *x, int *y, int *o) { sb_fence<cuda::thread_scope_system>(x, y, o); }
