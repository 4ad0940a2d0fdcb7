// Cooperative groups (issue 26): block sync and grid sync between a write and
// a read of the other thread's slot.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void cg_block(int *out) {
  __shared__ int slots[2];
  slots[threadIdx.x] = 1;
  cg::this_thread_block().sync();
  out[threadIdx.x] = slots[1 - threadIdx.x];
}
__global__ void cg_grid(int *slots, int *out) {
  slots[blockIdx.x] = 1;
  cg::this_grid().sync();
  out[blockIdx.x] = slots[1 - blockIdx.x];
}
