// Asynchronous copies as libcu++ and cuda::ptx emit them (issue 42): two
// threads of one block, a 16-byte __shared__ tile, an mbarrier or a
// cp.async group. Each kernel copies src[0..4) into the tile (or the tile out
// to dst) and has both threads read what the copy moved.
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/ptx>
#include <cuda_pipeline.h>
#include <new>
namespace ptx = cuda::ptx;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// cuda::memcpy_async on a block-scope cuda::barrier: thread 0 issues the copy
// (sm_90: cp.async.bulk completing on the barrier's transaction count; sm_80:
// cp.async with cp.async.mbarrier.arrive.noinc), both arrive_and_wait, then
// read the tile.
__global__ void memcpy_barrier(const int *src, int *out) {
  alignas(16) __shared__ int tile[4];
  alignas(block_barrier) __shared__ unsigned char storage[sizeof(block_barrier)];
  block_barrier &bar = *reinterpret_cast<block_barrier *>(storage);
  if (threadIdx.x == 0) init(&bar, 2);
  __syncthreads();
  if (threadIdx.x == 0) cuda::memcpy_async(tile, src, cuda::aligned_size_t<16>(sizeof(tile)), bar);
  bar.arrive_and_wait();
  out[threadIdx.x] = tile[threadIdx.x];
}

// The bug: the copy is issued but nobody waits on the barrier; __syncthreads
// does not wait for an asynchronous copy.
__global__ void memcpy_nowait(const int *src, int *out) {
  alignas(16) __shared__ int tile[4];
  alignas(block_barrier) __shared__ unsigned char storage[sizeof(block_barrier)];
  block_barrier &bar = *reinterpret_cast<block_barrier *>(storage);
  if (threadIdx.x == 0) init(&bar, 2);
  if (threadIdx.x == 0) tile[1] = 0;
  __syncthreads();
  if (threadIdx.x == 0) cuda::memcpy_async(tile, src, cuda::aligned_size_t<16>(sizeof(tile)), bar);
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
  bar.arrive_and_wait();
}

// sm_90 only (the bulk copies, fence.mbarrier_init): an sm_80 build leaves
// these kernels empty, so that its module is one ptxas accepts.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define SM90 1
#endif

// The cuda::ptx wrappers, as a TMA producer writes them (sm_90): init the
// mbarrier for one arrival, fence.mbarrier_init, bulk copy completing on it,
// arrive.expect_tx, and every thread polls try_wait.parity on phase 0.
__global__ void ptx_bulk(const int *src, int *out) {
#ifdef SM90
  alignas(16) __shared__ int tile[4];
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, tile, src, sizeof(tile), &bar);
    ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  out[threadIdx.x] = tile[threadIdx.x];
#endif
}

// A TMA store: both threads write the tile with generic stores, then
// fence.proxy.async.shared::cta (FENCED) so the async proxy sees them,
// __syncthreads, and thread 0 copies the tile to dst as one bulk group and
// waits for it to complete.
template <bool FENCED> __device__ void bulk_store(int *dst) {
#ifdef SM90
  alignas(16) __shared__ int tile[4];
  tile[threadIdx.x] = threadIdx.x + 1;
  if (FENCED) ptx::fence_proxy_async(ptx::space_shared);
  __syncthreads();
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, dst, tile, 8);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());
  }
#endif
}
__global__ void store_fenced(int *dst) { bulk_store<true>(dst); }
__global__ void store_unfenced(int *dst) { bulk_store<false>(dst); }

// The sm_80 primitives: thread 0 copies with __pipeline_memcpy_async, commits
// and waits for all but 0 groups, then __syncthreads and both read.
__global__ void pipeline_prims(const int *src, int *out) {
  alignas(16) __shared__ int tile[4];
  if (threadIdx.x == 0) {
    __pipeline_memcpy_async(tile, src, sizeof(tile));
    __pipeline_commit();
    __pipeline_wait_prior(0);
  }
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x];
}

// A thread-scope cuda::pipeline, one stage: producer_acquire, memcpy_async,
// producer_commit, consumer_wait, read, consumer_release (cp.async underneath).
__global__ void pipeline_thread(const int *src, int *out) {
  alignas(16) __shared__ int tile[4];
  auto pipe = cuda::make_pipeline();
  int t = threadIdx.x;
  pipe.producer_acquire();
  cuda::memcpy_async(&tile[2 * t], &src[2 * t], cuda::aligned_size_t<8>(8), pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  out[t] = tile[2 * t] + tile[2 * t + 1];
  pipe.consumer_release();
}

// cuda::device::memcpy_async_tx and barrier_arrive_tx (sm_90): thread 0 copies
// and arrives announcing the 16 bytes, thread 1 arrives plainly; both wait
// on their tokens and read.
__global__ void arrive_tx(const int *src, int *out) {
#ifdef SM90
  alignas(16) __shared__ int tile[4];
  alignas(block_barrier) __shared__ unsigned char storage[sizeof(block_barrier)];
  block_barrier &bar = *reinterpret_cast<block_barrier *>(storage);
  if (threadIdx.x == 0) init(&bar, 2);
  __syncthreads();
  block_barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cuda::device::memcpy_async_tx(tile, src, cuda::aligned_size_t<16>(sizeof(tile)), bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(cuda::std::move(token));
  out[threadIdx.x] = tile[threadIdx.x];
#endif
}

// Distributed shared memory (sm_90, a cluster of 2 CTAs): thread 0 of each
// CTA writes its rank + 1 into the other CTA's slot through
// map_shared_rank (mapa), cluster.sync() (barrier.cluster.arrive.release /
// wait.acquire), then reads its own slot.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
#ifdef SM90
#define CLUSTER_OF_2 __cluster_dims__(2, 1, 1)
#else
#define CLUSTER_OF_2
#endif
__global__ void CLUSTER_OF_2 dsmem_exchange(int *out) {
#ifdef SM90
  __shared__ int slot;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  int *other = cluster.map_shared_rank(&slot, rank ^ 1);
  *other = rank + 1;
  cluster.sync();
  out[rank] = slot;
#endif
}

// The bug: the cluster barrier's arrive is relaxed (cuda::ptx
// barrier_cluster_arrive(sem_relaxed), as a kernel writes it to signal
// "ready" without publishing data): the remote store is not released.
__global__ void CLUSTER_OF_2 dsmem_relaxed(int *out) {
#ifdef SM90
  __shared__ int slot;
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  int *other = cluster.map_shared_rank(&slot, rank ^ 1);
  *other = rank + 1;
  ptx::barrier_cluster_arrive(ptx::sem_relaxed);
  ptx::barrier_cluster_wait();
  out[rank] = slot;
#endif
}
