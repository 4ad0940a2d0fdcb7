// Warp collectives and bar.red as CUDA code uses them (issue 26): a shfl
// reduction, __syncwarp between a write and a read, a warp-aggregated atomic,
// __syncthreads_count, and load buffering whose value passes through a shfl.
// The harnesses run two threads of one CTA (lanes 0 and 1 of warp 0, so
// %ntid.x = 2: lanes 2-31 are not threads of the launch, D164).
#include <cuda/atomic>
// Each lane loads its element, the lanes of the block add up by butterfly
// shuffles among the active lanes; every lane ends with the sum.
__global__ void warp_sum(int *in, int *out) {
  int v = in[threadIdx.x];
  for (int d = 1; d < blockDim.x; d *= 2) v += __shfl_xor_sync(__activemask(), v, d);
  out[threadIdx.x] = v;
}
// Lane 0 writes, __syncwarp() (bar.warp.sync 0xffffffff), lane 1 reads.
__global__ void syncwarp_mp(int *data, int *out) {
  if (threadIdx.x == 0) *data = 42;
  __syncwarp();
  if (threadIdx.x == 1) out[1] = *data;
}
// Warp-aggregated atomicAdd: the lowest active lane adds for the whole warp,
// then hands the old value to the others, which take consecutive slots.
__global__ void warp_aggregated(int *counter, int *out) {
  unsigned mask = __activemask();
  int lane = threadIdx.x % 32;
  int leader = __ffs(mask) - 1;
  int base = 0;
  if (lane == leader) base = atomicAdd(counter, __popc(mask));
  base = __shfl_sync(mask, base, leader);
  out[blockIdx.x * 2 + threadIdx.x] = base + __popc(mask & ((1u << lane) - 1));
}
// Both threads write their slot, count the threads whose slot they wrote
// with __syncthreads_count (bar.red.popc), then read the other slot.
__global__ void syncthreads_count(int *slots, int *out) {
  slots[threadIdx.x] = 1;
  int n = __syncthreads_count(slots[threadIdx.x] == 1);
  out[threadIdx.x] = slots[1 - threadIdx.x];
  out[2 + threadIdx.x] = n;
}
// Load buffering through a shuffle: lane 0 of block 0 reads x and shuffles
// the value to lane 1, which writes y = 1 if it got 1; block 1 reads y and
// writes x = 1 if it got 1. Reading 1 on both sides needs the value to come
// out of thin air through the shuffle.
__global__ void lb_shfl(int *x, int *y, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> X(*x), Y(*y);
  if (blockIdx.x == 0) {
    int r = threadIdx.x == 0 ? X.load(cuda::memory_order_relaxed) : 0;
    int s = __shfl_sync(0x3, r, 0);
    if (threadIdx.x == 0) {
      out[0] = r;
    } else if (s == 1) {
      Y.store(1, cuda::memory_order_relaxed);
    }
  } else {
    int r = Y.load(cuda::memory_order_relaxed);
    out[1] = r;
    if (r == 1) X.store(1, cuda::memory_order_relaxed);
  }
}
