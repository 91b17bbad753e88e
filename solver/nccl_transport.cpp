// NCCL halo transport: ncclSend/ncclRecv to the two neighbours of an axis inside one group, on the exchange stream.
#include "solver/nccl_transport.hpp"

#include <nccl.h>

#include <string>

#include "solver/mpi_check.hpp"

namespace eddy {
namespace {

void check_nccl(ncclResult_t result, const char* call, const char* file, int line) {
  if (result != ncclSuccess) {
    throw DeviceError(std::string(file) + ":" + std::to_string(line) + ": " + call +
                      " failed: " + ncclGetErrorString(result));
  }
}
#define EDDY_NCCL_CHECK(call) check_nccl((call), #call, __FILE__, __LINE__)

class NcclPointToPoint final : public NcclTransport {
 public:
  explicit NcclPointToPoint(MPI_Comm comm) {
    int rank = 0, size = 1;
    EDDY_MPI_CHECK(MPI_Comm_rank(comm, &rank));
    EDDY_MPI_CHECK(MPI_Comm_size(comm, &size));
    ncclUniqueId id;
    if (rank == 0) EDDY_NCCL_CHECK(ncclGetUniqueId(&id));
    EDDY_MPI_CHECK(MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, comm));
    EDDY_NCCL_CHECK(ncclCommInitRank(&comm_, size, id, rank));
  }
  ~NcclPointToPoint() override { ncclCommDestroy(comm_); }

  void exchange(const void* send_low, void* recv_low, int low, const void* send_high, void* recv_high, int high,
                std::size_t bytes, const backend::Stream& stream) override {
    const ncclDataType_t type = ncclUint8;  // raw bytes: any storage type
    const std::size_t count = bytes;
    const auto s = static_cast<cudaStream_t>(stream.handle());
    // NCCL pairs sends and receives between two ranks in issue order. Sends go low then high, receives high then
    // low: when both neighbours are the same rank (two ranks on a periodic axis), its send to its lower neighbour
    // (us) then lands in our upper ghost plane, as it must.
    EDDY_NCCL_CHECK(ncclGroupStart());
    if (low >= 0) EDDY_NCCL_CHECK(ncclSend(send_low, count, type, low, comm_, s));
    if (high >= 0) EDDY_NCCL_CHECK(ncclSend(send_high, count, type, high, comm_, s));
    if (high >= 0) EDDY_NCCL_CHECK(ncclRecv(recv_high, count, type, high, comm_, s));
    if (low >= 0) EDDY_NCCL_CHECK(ncclRecv(recv_low, count, type, low, comm_, s));
    EDDY_NCCL_CHECK(ncclGroupEnd());
  }

  void exchange_sized(const void* const (&send)[2], const std::size_t (&send_bytes)[2], void* const (&recv)[2],
                      const std::size_t (&recv_bytes)[2], const int (&neighbour)[2],
                      const backend::Stream& stream) override {
    const auto s = static_cast<cudaStream_t>(stream.handle());
    // The order of exchange(): sends low then high, receives high then low.
    EDDY_NCCL_CHECK(ncclGroupStart());
    for (int side : {0, 1})
      if (neighbour[side] >= 0 && send_bytes[side] > 0)
        EDDY_NCCL_CHECK(ncclSend(send[side], send_bytes[side], ncclUint8, neighbour[side], comm_, s));
    for (int side : {1, 0})
      if (neighbour[side] >= 0 && recv_bytes[side] > 0)
        EDDY_NCCL_CHECK(ncclRecv(recv[side], recv_bytes[side], ncclUint8, neighbour[side], comm_, s));
    EDDY_NCCL_CHECK(ncclGroupEnd());
  }

 private:
  ncclComm_t comm_ = nullptr;
};

}  // namespace

std::unique_ptr<NcclTransport> NcclTransport::create(MPI_Comm comm) { return std::make_unique<NcclPointToPoint>(comm); }

}  // namespace eddy
