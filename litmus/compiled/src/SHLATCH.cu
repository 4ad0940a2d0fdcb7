// Block-scope synchronization objects in __shared__ memory (issue 26): a
// cuda::latch, and a cuda::barrier whose arrive() token is waited on. Two
// threads of one block write their slot, meet, then read the other's slot.
// Raw storage and placement new: clang does not construct __shared__ objects.
#include <cuda/latch>
#include <cuda/barrier>
#include <new>
using block_latch = cuda::latch<cuda::thread_scope_block>;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;
__global__ void latch_block(int *out) {
  __shared__ int slots[2];
  alignas(block_latch) __shared__ unsigned char storage[sizeof(block_latch)];
  block_latch &l = *reinterpret_cast<block_latch *>(storage);
  if (threadIdx.x == 0) new (&l) block_latch(2);
  __syncthreads();
  slots[threadIdx.x] = 1;
  l.arrive_and_wait();
  out[threadIdx.x] = slots[1 - threadIdx.x];
}
// arrive() returns a token; wait(std::move(token)) blocks until its phase completes.
__global__ void barrier_token(int *out) {
  __shared__ int slots[2];
  alignas(block_barrier) __shared__ unsigned char storage[sizeof(block_barrier)];
  block_barrier &b = *reinterpret_cast<block_barrier *>(storage);
  if (threadIdx.x == 0) init(&b, 2);
  __syncthreads();
  slots[threadIdx.x] = 1;
  auto token = b.arrive();
  b.wait(cuda::std::move(token));
  out[threadIdx.x] = slots[1 - threadIdx.x];
}
