#include "tensor/storage.h"

namespace brisk {

Storage::Storage(size_t nbytes, Device device)
    : data_(allocator_for(device)->allocate(nbytes, device)), nbytes_(nbytes), device_(device) {}

Storage::Storage(DataPtr data, size_t nbytes, Device device)
    : data_(std::move(data)), nbytes_(nbytes), device_(device) {}

}  // namespace brisk
