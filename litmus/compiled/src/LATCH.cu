// cuda::latch and cuda::barrier in global memory at device scope (issue 26).
// Both blocks write their slot, meet, then read the other's slot.
#include <cuda/latch>
#include <cuda/barrier>
__global__ void latch_device(int *slots, cuda::latch<cuda::thread_scope_device> *l, int *out) {
  slots[blockIdx.x] = 1;
  l->arrive_and_wait();
  out[blockIdx.x] = slots[1 - blockIdx.x];
}
__global__ void barrier_device(int *slots, cuda::barrier<cuda::thread_scope_device> *b, int *out) {
  slots[blockIdx.x] = 1;
  b->arrive_and_wait();
  out[blockIdx.x] = slots[1 - blockIdx.x];
}
// A cuda::barrier<thread_scope_block> in shared memory (mbarrier on sm_90),
// in raw storage: clang does not construct __shared__ objects.
using block_barrier = cuda::barrier<cuda::thread_scope_block>;
__global__ void barrier_block(int *out) {
  __shared__ int slots[2];
  alignas(block_barrier) __shared__ unsigned char storage[sizeof(block_barrier)];
  block_barrier &b = *reinterpret_cast<block_barrier *>(storage);
  if (threadIdx.x == 0) init(&b, 2);
  __syncthreads();
  slots[threadIdx.x] = 1;
  b.arrive_and_wait();
  out[threadIdx.x] = slots[1 - threadIdx.x];
}
