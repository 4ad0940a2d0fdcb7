// Message passing: block 0 writes data then flag, block 1 reads flag then data.
// out[2] = flag seen, out[3] = data seen.
#include <cuda/atomic>
template <cuda::thread_scope S>
__device__ void mp_body(int *data, int *flag, int *out) {
  cuda::atomic_ref<int, S> f(*flag);
  if (blockIdx.x == 0) {
    *data = 1;
    f.store(1, cuda::memory_order_release);
  } else {
    int r0 = f.load(cuda::memory_order_acquire);
    int r1 = *data;
    out[2] = r0;
    out[3] = r1;
  }
}
__global__ void mp_sys(int *d, int *f, int *o) { mp_body<cuda::thread_scope_system>(d, f, o); }
__global__ void mp_gpu(int *d, int *f, int *o) { mp_body<cuda::thread_scope_device>(d, f, o); }
__global__ void mp_cta(int *d, int *f, int *o) { mp_body<cuda::thread_scope_block>(d, f, o); }

// Relaxed flag accesses with fences (C++ fence-fence synchronization).
__global__ void mp_fences(int *data, int *flag, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  cuda::atomic_ref<int, cuda::thread_scope_device> d(*data);
  if (blockIdx.x == 0) {
    d.store(1, cuda::memory_order_relaxed);
    cuda::atomic_thread_fence(cuda::memory_order_release, cuda::thread_scope_device);
    f.store(1, cuda::memory_order_relaxed);
  } else {
    int r0 = f.load(cuda::memory_order_relaxed);
    cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
    int r1 = d.load(cuda::memory_order_relaxed);
    out[2] = r0;
    out[3] = r1;
  }
}

// Both relaxed: no ordering intended.
__global__ void mp_relaxed(int *data, int *flag, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  cuda::atomic_ref<int, cuda::thread_scope_device> d(*data);
  if (blockIdx.x == 0) {
    d.store(1, cuda::memory_order_relaxed);
    f.store(1, cuda::memory_order_relaxed);
  } else {
    int r0 = f.load(cuda::memory_order_relaxed);
    int r1 = d.load(cuda::memory_order_relaxed);
    out[2] = r0;
    out[3] = r1;
  }
}
