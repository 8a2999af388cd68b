#include "tensorboard/summary_writer.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "tensor/error.h"
#include "tensorboard/crc32c.h"
#include "tensorboard/event.pb.h"

namespace brisk::tensorboard {
namespace {

constexpr const char* kFileVersion = "brain.Event:2";

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A name no other writer uses, in this process (the counter) or another (host and pid).
std::string event_file_name() {
  static std::atomic<int> writers{0};
  char host[256] = "localhost";
  gethostname(host, sizeof host - 1);
  return fmt::format("events.out.tfevents.{}.{}.{}.{}", static_cast<int64_t>(now_seconds()), host, getpid(), writers++);
}

FILE* create_event_file(const std::string& log_dir, const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(log_dir, error);
  BRISK_CHECK(!error, "TensorBoard log directory '{}': cannot create it: {}", log_dir, error.message());
  FILE* file = std::fopen(path.c_str(), "wb");
  BRISK_CHECK(file != nullptr, "TensorBoard event file '{}': cannot create it: {}", path, std::strerror(errno));
  return file;
}

void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>(value >> (8 * i) & 0xff);
}

}  // namespace

SummaryWriter::SummaryWriter(const std::string& log_dir)
    : path_((std::filesystem::path(log_dir) / event_file_name()).string()),
      file_(create_event_file(log_dir, path_), &std::fclose) {
  Event event;
  event.set_wall_time(now_seconds());
  event.set_file_version(kFileVersion);
  write_record(event.SerializeAsString());
  flush();
}

void SummaryWriter::add_scalar(const std::string& tag, double value, int64_t step) {
  Event event;
  event.set_wall_time(now_seconds());
  event.set_step(step);
  Summary::Value* scalar = event.mutable_summary()->add_value();
  scalar->set_tag(tag);
  scalar->set_simple_value(static_cast<float>(value));
  write_record(event.SerializeAsString());
}

void SummaryWriter::flush() {
  BRISK_CHECK(std::fflush(file_.get()) == 0 && !std::ferror(file_.get()),
              "TensorBoard event file '{}': write failed: {}", path_, std::strerror(errno));
}

void SummaryWriter::write_record(const std::string& data) {
  std::string record;
  put_le(record, data.size(), 8);
  put_le(record, masked_crc32c(record.data(), 8), 4);
  record += data;
  put_le(record, masked_crc32c(data.data(), data.size()), 4);
  std::fwrite(record.data(), 1, record.size(), file_.get());
}

}  // namespace brisk::tensorboard
