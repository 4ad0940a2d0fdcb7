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
// A cuda::barrier<thread_scope_block> in shared memory (mbarrier on sm_90).
__global__ void barrier_block(int *out) {
  __shared__ int slots[2];
  __shared__ cuda::barrier<cuda::thread_scope_block> b;
  if (threadIdx.x == 0) init(&b, 2);
  __syncthreads();
  slots[threadIdx.x] = 1;
  b.arrive_and_wait();
  out[threadIdx.x] = slots[1 - threadIdx.x];
}
