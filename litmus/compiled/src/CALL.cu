// Message passing through non-inlined device functions: exercises PTX's own
// `call` with `.param` arguments and a return value.
#include <cuda/atomic>
__device__ __noinline__ void publish(int *data, int *flag, int v) {
  *data = v;
  cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).store(1, cuda::memory_order_release);
}
__device__ __noinline__ int observe(int *flag) {
  return cuda::atomic_ref<int, cuda::thread_scope_device>(*flag).load(cuda::memory_order_acquire);
}
__global__ void mp_calls(int *data, int *flag, int *out) {
  if (blockIdx.x == 0) {
    publish(data, flag, 1);
  } else {
    int r0 = observe(flag);
    int r1 = *data;
    out[2] = r0;
    out[3] = r1;
  }
}
