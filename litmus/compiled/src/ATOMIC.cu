// libcu++ atomics at every scope and memory order (issue 26): message passing
// through cuda::atomic_ref store/load, fetch_add, exchange and
// compare_exchange, and cuda::atomic objects. The writer is the thread with
// blockIdx.x + threadIdx.x == 0 (two CTAs, or two threads of one CTA).
#include <cuda/atomic>
template <cuda::thread_scope S, cuda::memory_order ST, cuda::memory_order LD>
__device__ void mp_ref(int *data, int *flag, int *out) {
  cuda::atomic_ref<int, S> f(*flag);
  if (blockIdx.x + threadIdx.x == 0) {
    *data = 1;
    f.store(1, ST);
  } else {
    out[2] = f.load(LD);
    out[3] = *data;
  }
}
// thread_scope_block / device / system with release/acquire.
__global__ void mp_block(int *d, int *f, int *o) {
  mp_ref<cuda::thread_scope_block, cuda::memory_order_release, cuda::memory_order_acquire>(d, f, o);
}
__global__ void mp_device(int *d, int *f, int *o) {
  mp_ref<cuda::thread_scope_device, cuda::memory_order_release, cuda::memory_order_acquire>(d, f, o);
}
__global__ void mp_system(int *d, int *f, int *o) {
  mp_ref<cuda::thread_scope_system, cuda::memory_order_release, cuda::memory_order_acquire>(d, f, o);
}
// Store and load orders at device scope.
__global__ void mp_seq_cst(int *d, int *f, int *o) {
  mp_ref<cuda::thread_scope_device, cuda::memory_order_seq_cst, cuda::memory_order_seq_cst>(d, f, o);
}
__global__ void mp_relaxed_acq(int *d, int *f, int *o) {
  mp_ref<cuda::thread_scope_device, cuda::memory_order_relaxed, cuda::memory_order_acquire>(d, f, o);
}
__global__ void mp_rel_relaxed(int *d, int *f, int *o) {
  mp_ref<cuda::thread_scope_device, cuda::memory_order_release, cuda::memory_order_relaxed>(d, f, o);
}
// The flag raised by a read-modify-write: fetch_add(release), exchange(acq_rel).
template <cuda::memory_order RMW>
__device__ void mp_rmw(int *data, int *flag, int *out, bool exch) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  if (blockIdx.x + threadIdx.x == 0) {
    *data = 1;
    if (exch) f.exchange(1, RMW); else f.fetch_add(1, RMW);
  } else {
    out[2] = f.load(cuda::memory_order_acquire);
    out[3] = *data;
  }
}
__global__ void mp_fetch_add(int *d, int *f, int *o) { mp_rmw<cuda::memory_order_release>(d, f, o, false); }
__global__ void mp_exchange(int *d, int *f, int *o) { mp_rmw<cuda::memory_order_acq_rel>(d, f, o, true); }
__global__ void mp_fetch_add_relaxed(int *d, int *f, int *o) { mp_rmw<cuda::memory_order_relaxed>(d, f, o, false); }
// The reader observes the flag with a compare_exchange_strong(acquire).
__global__ void mp_cas_acquire(int *data, int *flag, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> f(*flag);
  if (blockIdx.x + threadIdx.x == 0) {
    *data = 1;
    f.store(1, cuda::memory_order_release);
  } else {
    int expected = 1;
    out[2] = f.compare_exchange_strong(expected, 2, cuda::memory_order_acquire, cuda::memory_order_acquire);
    out[3] = *data;
  }
}
// Two increments by fetch_add at each scope: out[0], out[1] get the old values.
template <cuda::thread_scope S>
__device__ void add2(int *x, int *out) {
  cuda::atomic_ref<int, S> X(*x);
  out[blockIdx.x + threadIdx.x] = X.fetch_add(1, cuda::memory_order_relaxed);
}
__global__ void add_block(int *x, int *o) { add2<cuda::thread_scope_block>(x, o); }
__global__ void add_device(int *x, int *o) { add2<cuda::thread_scope_device>(x, o); }
__global__ void add_system(int *x, int *o) { add2<cuda::thread_scope_system>(x, o); }
// cuda::atomic objects (not refs) in global memory, placed by the caller.
__global__ void mp_atomic_object(int *data, cuda::atomic<int, cuda::thread_scope_device> *flag, int *out) {
  if (blockIdx.x + threadIdx.x == 0) {
    *data = 1;
    flag->store(1, cuda::memory_order_release);
  } else {
    out[2] = flag->load(cuda::memory_order_acquire);
    out[3] = *data;
  }
}
// Store buffering with seq_cst at system scope.
__global__ void sb_system(int *x, int *y, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_system> X(*x), Y(*y);
  if (blockIdx.x + threadIdx.x == 0) {
    X.store(1, cuda::memory_order_seq_cst);
    out[0] = Y.load(cuda::memory_order_seq_cst);
  } else {
    Y.store(1, cuda::memory_order_seq_cst);
    out[1] = X.load(cuda::memory_order_seq_cst);
  }
}
// Store buffering with acq_rel accesses only: allowed in C++.
__global__ void sb_acq_rel(int *x, int *y, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> X(*x), Y(*y);
  if (blockIdx.x + threadIdx.x == 0) {
    X.store(1, cuda::memory_order_release);
    out[0] = Y.load(cuda::memory_order_acquire);
  } else {
    Y.store(1, cuda::memory_order_release);
    out[1] = X.load(cuda::memory_order_acquire);
  }
}
