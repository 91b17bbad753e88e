// Launch settings shared by every backend (kernels/backend.hpp): the GPU block width used by parallel_for.
#include <stdexcept>
#include <string>

#include "kernels/backend.hpp"

namespace eddy::backend {
namespace {
int block_size_x_setting = 128;
}  // namespace

void set_block_size_x(int threads) {
  if (threads < 32 || threads > kMaxBlockSizeX || threads % 32 != 0) {
    throw std::invalid_argument("GPU block width must be a multiple of 32 between 32 and " +
                                std::to_string(kMaxBlockSizeX) + " (got " + std::to_string(threads) + ")");
  }
  block_size_x_setting = threads;
}

int block_size_x() { return block_size_x_setting; }

}  // namespace eddy::backend
