// cuda::atomic_ref over unsigned long long and float (issue 26): fetch_add,
// fetch_min, fetch_max and exchange at device scope, one block each.
#include <cuda/atomic>
using u64 = unsigned long long;
__global__ void add_u64(u64 *x, u64 *out) {
  cuda::atomic_ref<u64, cuda::thread_scope_device> r(*x);
  out[blockIdx.x] = r.fetch_add(1, cuda::std::memory_order_relaxed);
}
// Block 0 lowers x to 3, block 1 raises it to 9: each sees the other's result or the start.
__global__ void minmax_u64(u64 *x, u64 *out) {
  cuda::atomic_ref<u64, cuda::thread_scope_device> r(*x);
  if (blockIdx.x == 0)
    out[0] = r.fetch_min(3, cuda::std::memory_order_relaxed);
  else
    out[1] = r.fetch_max(9, cuda::std::memory_order_relaxed);
}
__global__ void exchange_u64(u64 *x, u64 *out) {
  cuda::atomic_ref<u64, cuda::thread_scope_device> r(*x);
  out[blockIdx.x] = r.exchange(blockIdx.x + 1, cuda::std::memory_order_acq_rel);
}
__global__ void add_f32(float *x, float *out) {
  cuda::atomic_ref<float, cuda::thread_scope_device> r(*x);
  out[blockIdx.x] = r.fetch_add(1.0f, cuda::std::memory_order_relaxed);
}
__global__ void minmax_f32(float *x, float *out) {
  cuda::atomic_ref<float, cuda::thread_scope_device> r(*x);
  if (blockIdx.x == 0)
    out[0] = r.fetch_min(3.0f, cuda::std::memory_order_relaxed);
  else
    out[1] = r.fetch_max(9.0f, cuda::std::memory_order_relaxed);
}
__global__ void exchange_f32(float *x, float *out) {
  cuda::atomic_ref<float, cuda::thread_scope_device> r(*x);
  out[blockIdx.x] = r.exchange(blockIdx.x + 1.0f, cuda::std::memory_order_acq_rel);
}
