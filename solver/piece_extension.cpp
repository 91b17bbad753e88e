#include "solver/piece_extension.hpp"

#include <type_traits>

#include "solver/mpi_check.hpp"

namespace eddy {

template <class T>
std::vector<T> extend_to_upper_neighbours(const Decomposition& d, const std::vector<T>& fields, int components,
                                          std::array<int, 3>& size) {
  size = d.local_size;
  std::vector<T> current = fields;
  const MPI_Datatype type = std::is_same_v<T, double> ? MPI_DOUBLE : MPI_FLOAT;
  for (int axis = 0; axis < 3; ++axis) {
    const bool has_upper = extends_along(d, d.coords, axis);
    const bool has_lower = d.coords[axis] > 0;
    if (!has_upper && !has_lower) continue;
    // The plane normal to `axis`: index (i, j, k) with the axis coordinate fixed.
    const std::array<int, 3> s = size;
    const std::size_t cells = std::size_t(s[0]) * s[1] * s[2];
    const std::size_t plane = cells / s[axis];
    auto at = [&](int c, int i, int j, int k) { return std::size_t(c) * cells + i + std::size_t(s[0]) * (j + std::size_t(s[1]) * k); };
    auto for_plane = [&](int index, auto fn) {  // fn(c, i, j, k, p) over the plane at `index` along `axis`
      std::size_t p = 0;
      for (int c = 0; c < components; ++c)
        for (int k = 0; k < s[2]; ++k)
          for (int j = 0; j < s[1]; ++j)
            for (int i = 0; i < s[0]; ++i) {
              const int q[3] = {i, j, k};
              if (q[axis] != index) continue;
              fn(c, i, j, k, p++);
            }
    };
    std::vector<T> send(plane * components), recv(plane * components);
    for_plane(0, [&](int c, int i, int j, int k, std::size_t p) { send[p] = current[at(c, i, j, k)]; });
    const int lower = has_lower ? d.neighbour[axis][0] : MPI_PROC_NULL;
    const int upper = has_upper ? d.neighbour[axis][1] : MPI_PROC_NULL;
    EDDY_MPI_CHECK(MPI_Sendrecv(send.data(), static_cast<int>(send.size()), type, lower, 100 + axis, recv.data(),
                                static_cast<int>(recv.size()), type, upper, 100 + axis, d.comm, MPI_STATUS_IGNORE));
    if (!has_upper) continue;
    std::array<int, 3> grown = s;
    grown[axis] += 1;
    const std::size_t grown_cells = std::size_t(grown[0]) * grown[1] * grown[2];
    std::vector<T> next(grown_cells * components);
    auto at_grown = [&](int c, int i, int j, int k) {
      return std::size_t(c) * grown_cells + i + std::size_t(grown[0]) * (j + std::size_t(grown[1]) * k);
    };
    for (int c = 0; c < components; ++c)
      for (int k = 0; k < s[2]; ++k)
        for (int j = 0; j < s[1]; ++j)
          for (int i = 0; i < s[0]; ++i) next[at_grown(c, i, j, k)] = current[at(c, i, j, k)];
    std::size_t p = 0;
    for (int c = 0; c < components; ++c)
      for (int k = 0; k < grown[2]; ++k)
        for (int j = 0; j < grown[1]; ++j)
          for (int i = 0; i < grown[0]; ++i) {
            const int q[3] = {i, j, k};
            if (q[axis] == s[axis]) next[at_grown(c, i, j, k)] = recv[p++];
          }
    current.swap(next);
    size = grown;
  }
  return current;
}

template std::vector<float> extend_to_upper_neighbours<float>(const Decomposition&, const std::vector<float>&, int,
                                                              std::array<int, 3>&);
template std::vector<double> extend_to_upper_neighbours<double>(const Decomposition&, const std::vector<double>&,
                                                                int, std::array<int, 3>&);

}  // namespace eddy
