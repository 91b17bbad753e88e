# Experiment (not product code): evict-first cache hints (__ldcs/__stcs) on every population load and store of
# kernels/streaming.hpp. Applied to a copy of the tree by scripts/tune_kernel.sh. Measured slower (docs/performance.md).
import re, sys
root = sys.argv[1]
p = root + '/kernels/streaming.hpp'
s = open(p).read()
s = re.sub(r'Stored<T>::load\(a\.f\[([^\]]+)\]\)', r'Stored<T>::load(__ldcs(a.f + (\1)))', s)
s = re.sub(r'a\.f\[([^\]]+)\] = (Stored<T>::store\([^;]+\));', r'__stcs(a.f + (\1), \2);', s)
helpers = """
namespace eddy {
template <class T> __host__ __device__ inline T tune_ldcs(const T* p) {
#ifdef __CUDA_ARCH__
  return __ldcs(p);
#else
  return *p;
#endif
}
template <class T> __host__ __device__ inline void tune_stcs(T* p, T v) {
#ifdef __CUDA_ARCH__
  __stcs(p, v);
#else
  *p = v;
#endif
}
}  // namespace eddy
"""
s = s.replace('#include "kernels/views.hpp"\n', '#include "kernels/views.hpp"\n' + helpers, 1)
s = s.replace('__ldcs(a.f', 'tune_ldcs(a.f').replace('__stcs(a.f', 'tune_stcs(a.f')
open(p, 'w').write(s)
print(s.count('__ldcs'), 'loads,', s.count('__stcs'), 'stores hinted')
