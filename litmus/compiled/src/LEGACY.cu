// Legacy CUDA idioms: volatile, __threadfence, atomicCAS/atomicExch/atomicAdd_block.
__global__ void mp_volatile_fence(volatile int *data, volatile int *flag, int *out) {
  if (blockIdx.x == 0) {
    *data = 1;
    __threadfence();
    *flag = 1;
  } else {
    int r0 = *flag;
    __threadfence();
    int r1 = *data;
    out[2] = r0;
    out[3] = r1;
  }
}
__global__ void mp_volatile(volatile int *data, volatile int *flag, int *out) {
  if (blockIdx.x == 0) {
    *data = 1;
    *flag = 1;
  } else {
    int r0 = *flag;
    int r1 = *data;
    out[2] = r0;
    out[3] = r1;
  }
}
// Spin lock with atomicCAS / atomicExch; critical section increments a counter.
__global__ void lock_legacy(int *lock, volatile int *count) {
  while (atomicCAS(lock, 0, 1) != 0) { }
  __threadfence();
  *count = *count + 1;
  __threadfence();
  atomicExch(lock, 0);
}
__global__ void add_block(int *x, int *out) {
  out[threadIdx.x] = atomicAdd_block(x, 1);
}
