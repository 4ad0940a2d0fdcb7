// More of what a library user writes (issue 26, round three): atomic_ref<float>
// fetch_sub and <double> fetch_add, a coalesced_group reduce, legacy atomics
// (16-bit atomicCAS, atomicInc, float atomicAdd), a block-scope atomic_ref on
// __shared__ memory, __syncthreads_or/_and.
#include <cuda/atomic>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void sub_f32(float *x, float *out) {
  cuda::atomic_ref<float, cuda::thread_scope_device> r(*x);
  out[blockIdx.x] = r.fetch_sub(1.0f, cuda::std::memory_order_relaxed);
}
__global__ void add_f64(double *x, double *out) {
  cuda::atomic_ref<double, cuda::thread_scope_device> r(*x);
  out[blockIdx.x] = r.fetch_add(1.0, cuda::std::memory_order_relaxed);
}
__global__ void coalesced_reduce(int *vals, int *out) {
  auto g = cg::coalesced_threads();
  out[threadIdx.x] = cg::reduce(g, vals[threadIdx.x], cg::plus<int>());
}
__global__ void legacy_atomics(unsigned short *h, unsigned *c, float *f, unsigned *out) {
  out[blockIdx.x] = atomicCAS(h, (unsigned short)0, (unsigned short)(blockIdx.x + 1));
  out[2 + blockIdx.x] = atomicInc(c, 5);
  atomicAdd(f, 1.0f);
  atomicAdd_system(f, 1.0f);
}
__global__ void block_ref(int *out) {
  __shared__ int x;
  if (threadIdx.x == 0) x = 0;
  __syncthreads();
  cuda::atomic_ref<int, cuda::thread_scope_block> r(x);
  out[threadIdx.x] = r.fetch_add(1, cuda::std::memory_order_relaxed);
}
__global__ void sync_or(int *flags, int *out) {
  out[threadIdx.x] = __syncthreads_or(flags[threadIdx.x]);
  out[2 + threadIdx.x] = __syncthreads_and(flags[threadIdx.x]);
}
