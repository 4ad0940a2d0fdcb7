// A CUB-style decoupled look-back handover (issue 26): tile 0 publishes its
// aggregate, then its status flag; tile 1 waits for the flag, reads the
// aggregate. `lookback_split` uses two words (release/acquire), `lookback_cub`
// CUB's own ScanTileState (a packed status/value word).
#include <cuda/atomic>
#include <cub/agent/single_pass_scan_operators.cuh>
__global__ void lookback_split(int *aggregate, int *status, int *out) {
  cuda::atomic_ref<int, cuda::thread_scope_device> st(*status);
  if (blockIdx.x == 0) {
    *aggregate = 42;
    st.store(1, cuda::memory_order_release);
  } else {
    while (st.load(cuda::memory_order_acquire) == 0) { }
    out[1] = *aggregate;
  }
}
using TileState = cub::ScanTileState<int>;
__global__ void lookback_cub(uint2 *descs, int *out) {
  TileState ts;
  ts.Init(2, descs, 0);
  if (blockIdx.x == 0) {
    ts.SetInclusive(0, 42);
  } else {
    unsigned int status;
    int value;
    ts.WaitForValid(0, status, value);
    out[0] = status;
    out[1] = value;
  }
}
