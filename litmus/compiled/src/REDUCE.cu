// Reductions a library user writes (issue 26): CUB BlockReduce and WarpReduce
// over the two threads of block 0, published through global memory to block 1
// with a release flag; cooperative groups tiled_partition sync and cg::reduce.
#include <cub/block/block_reduce.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/atomic>
namespace cg = cooperative_groups;
__device__ void publish(int sum, int *total, int *flag) {
  *total = sum;
  cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).store(1, cuda::std::memory_order_release);
}
__device__ void observe(int *total, int *flag, int *out) {
  while (cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).load(cuda::std::memory_order_acquire) == 0) { }
  out[2] = *total;
}
__global__ void block_reduce(int *vals, int *total, int *flag, int *out) {
  using R = cub::BlockReduce<int, 2>;
  __shared__ typename R::TempStorage temp;
  if (blockIdx.x == 0) {
    int sum = R(temp).Sum(vals[threadIdx.x]);
    if (threadIdx.x == 0) publish(sum, total, flag);
  } else {
    observe(total, flag, out);
  }
}
__global__ void warp_reduce(int *vals, int *total, int *flag, int *out) {
  using R = cub::WarpReduce<int, 2>;
  __shared__ typename R::TempStorage temp;
  if (blockIdx.x == 0) {
    int sum = R(temp).Sum(vals[threadIdx.x]);
    if (threadIdx.x == 0) publish(sum, total, flag);
  } else {
    observe(total, flag, out);
  }
}
// A 32-thread tile's sync orders the shared writes before the reads.
__global__ void tile_sync(int *out) {
  __shared__ int slots[2];
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  slots[threadIdx.x] = 1;
  tile.sync();
  out[threadIdx.x] = slots[1 - threadIdx.x];
}
// cg::reduce over a 2-thread tile: both threads get the sum.
__global__ void tile_reduce(int *vals, int *out) {
  auto tile = cg::tiled_partition<2>(cg::this_thread_block());
  out[threadIdx.x] = cg::reduce(tile, vals[threadIdx.x], cg::plus<int>());
}
