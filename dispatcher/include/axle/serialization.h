// Saving and loading tensors: the safetensors format (a JSON header naming each
// tensor's dtype, shape and byte range, then the raw little-endian data) and
// numpy's .npy (one tensor). Files are read fully validated: a malformed file is
// a ValueError naming the file and what is wrong, never a crash. safetensors
// files are checked as the reference loader (the safetensors crate) checks
// them: a header of at most 100 MB nested at most 128 deep, no duplicate keys,
// "__metadata__" values strings, data_offsets that tile the data exactly, shapes
// whose sizes fit. A .npy header is parsed as the Python literal it is (at most
// 10,000 bytes, numpy's limit; exactly the keys descr, fortran_order and shape);
// structured and other dtypes axle lacks are refused. Either way a tensor has at
// most 64 dimensions (kMaxTensorDims).
#pragma once

#include <axle/export.h>
#include <axle/tensor.h>

#include <map>
#include <string>

namespace axle {

// Writes `tensors` (any device, any layout; copied to the host) to `path`.
AXLE_API void save_safetensors(const std::map<std::string, Tensor>& tensors, const std::string& path,
                               const std::map<std::string, std::string>& metadata = {});
// Reads every tensor of a safetensors file onto the host. `metadata` receives
// the optional "__metadata__" strings.
AXLE_API std::map<std::string, Tensor> load_safetensors(const std::string& path,
                                                        std::map<std::string, std::string>* metadata = nullptr);
AXLE_API void save_npy(const Tensor& tensor, const std::string& path);
AXLE_API Tensor load_npy(const std::string& path);

}  // namespace axle
