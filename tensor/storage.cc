#include "tensor/storage.h"

namespace brisk {

Storage::Storage(size_t nbytes, Device device)
    : data_(allocator_for(device)->allocate(nbytes, device)), nbytes_(nbytes), device_(device) {}

Storage::Storage(DataPtr data, size_t nbytes, Device device)
    : data_(std::move(data)), nbytes_(nbytes), device_(device) {}

void Storage::resize(size_t nbytes) {
  data_.reset();  // the old block goes back first, so that a refill can reuse it
  if (nbytes > 0) data_ = allocator_for(device_)->allocate(nbytes, device_);
  nbytes_ = nbytes;
}

}  // namespace brisk
