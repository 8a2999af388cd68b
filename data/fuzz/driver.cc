// main() for a fuzz target built without libFuzzer (gcc, the default build): runs
// LLVMFuzzerTestOneInput on the seeds, on systematic mutations of each, then on random
// mutations until the time or run budget is spent. It takes libFuzzer's command line, so one
// test target runs either (tests/data/fuzz/run_fuzzer.sh):
//
//   <fuzzer> [-max_total_time=S] [-runs=N] [-seed=N] [-max_len=N] [-artifact_prefix=P] DIR|FILE...
//
// Every file of the DIRs, and every FILE, is a seed (a FILE alone replays that input). The
// systematic mutations: every truncation, and each bit flip and 0x00/0xff of the first 64
// bytes. The random ones: bit flips, byte overwrites, inserted and erased runs, truncations and
// splices of two seeds. Without coverage feedback it finds what these reach; libFuzzer
// (--config=fuzz) explores further. A crash or abort writes the input to P + "crash-<pid>"
// before the process dies; other -flags are ignored, as libFuzzer's would be by this driver.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// ASan's hook for its own reports (weak: absent without ASan).
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace {

constexpr size_t kHeaderBytes = 64;

// The input being run, and where a crash writes it; read by the crash handler.
std::vector<uint8_t> current;
char crash_path[4096];

void write_crash_input() {
  const int fd = ::open(crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  for (size_t done = 0; done < current.size();) {
    const ssize_t n = ::write(fd, current.data() + done, current.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  static const char kMessage[] = "fuzz driver: the crashing input is in ";
  (void)!::write(2, kMessage, sizeof(kMessage) - 1);
  (void)!::write(2, crash_path, std::strlen(crash_path));
  (void)!::write(2, "\n", 1);
}

void on_crash(int signal) {
  write_crash_input();
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

struct Flags {
  double max_total_time = 0;  // seconds of random mutations; 0: none unless -runs
  int64_t runs = -1;          // random inputs; -1: as many as the time allows
  uint64_t seed = 0;
  size_t max_len = 16384;
  std::string artifact_prefix = "./";
  std::vector<std::string> inputs;
};

Flags parse_flags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* name) -> const char* {
      const size_t n = std::strlen(name);
      return arg.compare(0, n, name) == 0 ? arg.c_str() + n : nullptr;
    };
    if (const char* v = value("-max_total_time=")) {
      flags.max_total_time = std::atof(v);
    } else if (const char* v = value("-runs=")) {
      flags.runs = std::atoll(v);
    } else if (const char* v = value("-seed=")) {
      flags.seed = std::strtoull(v, nullptr, 10);
    } else if (const char* v = value("-max_len=")) {
      flags.max_len = std::strtoull(v, nullptr, 10);
    } else if (const char* v = value("-artifact_prefix=")) {
      flags.artifact_prefix = v;
    } else if (arg[0] == '-') {
      std::fprintf(stderr, "fuzz driver: ignoring %s\n", arg.c_str());
    } else {
      flags.inputs.push_back(arg);
    }
  }
  return flags;
}

std::vector<uint8_t> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::vector<uint8_t>> read_seeds(const std::vector<std::string>& inputs) {
  std::vector<std::vector<uint8_t>> seeds;
  for (const std::string& input : inputs) {
    if (!std::filesystem::is_directory(input)) {
      seeds.push_back(read_file(input));
      continue;
    }
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(input)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());  // the same order, so a -seed replays the same run
    for (const auto& file : files) seeds.push_back(read_file(file));
  }
  return seeds;
}

void run(const std::vector<uint8_t>& input) {
  current = input;
  current.shrink_to_fit();  // exactly `size` bytes on the heap, so an over-read is one (ASan sees it)
  LLVMFuzzerTestOneInput(current.data(), current.size());
}

size_t run_systematic_mutations(const std::vector<uint8_t>& seed) {
  size_t runs = 0;
  for (size_t length = 0; length < seed.size(); ++length, ++runs) {
    run(std::vector<uint8_t>(seed.begin(), seed.begin() + static_cast<std::ptrdiff_t>(length)));
  }
  std::vector<uint8_t> mutated = seed;
  for (size_t i = 0; i < std::min(seed.size(), kHeaderBytes); ++i) {
    for (int bit = 0; bit < 8; ++bit, ++runs) {
      mutated[i] = static_cast<uint8_t>(seed[i] ^ (1u << bit));
      run(mutated);
    }
    for (uint8_t value : {uint8_t{0x00}, uint8_t{0xff}}) {
      mutated[i] = value;
      run(mutated);
      ++runs;
    }
    mutated[i] = seed[i];
  }
  return runs;
}

// One to four random edits of a seed, or a splice of two.
std::vector<uint8_t> mutate(const std::vector<std::vector<uint8_t>>& seeds, std::mt19937_64& rng, size_t max_len) {
  std::vector<uint8_t> out = seeds[rng() % seeds.size()];
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    const size_t at = out.empty() ? 0 : rng() % out.size();
    switch (rng() % 6) {
      case 0:
        if (!out.empty()) out[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
        break;
      case 1:
        if (!out.empty()) out[at] = static_cast<uint8_t>(rng());
        break;
      case 2: out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), 1 + rng() % 16, static_cast<uint8_t>(rng())); break;
      case 3:
        out.erase(out.begin() + static_cast<std::ptrdiff_t>(at),
                  out.begin() + static_cast<std::ptrdiff_t>(std::min(out.size(), at + 1 + rng() % 16)));
        break;
      case 4: out.resize(at); break;
      case 5: {
        const std::vector<uint8_t>& other = seeds[rng() % seeds.size()];
        const size_t from = other.empty() ? 0 : rng() % other.size();
        out.resize(at);
        out.insert(out.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
        break;
      }
    }
  }
  if (out.size() > max_len) out.resize(max_len);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = parse_flags(argc, argv);
  std::snprintf(crash_path, sizeof(crash_path), "%scrash-%d", flags.artifact_prefix.c_str(),
                static_cast<int>(::getpid()));
  for (int signal : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(signal, on_crash);
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(write_crash_input);

  const std::vector<std::vector<uint8_t>> seeds = read_seeds(flags.inputs);
  if (seeds.empty()) {
    std::fprintf(stderr, "fuzz driver: no inputs; give corpus directories or files\n");
    return 1;
  }
  const auto start = std::chrono::steady_clock::now();
  size_t systematic = 0;
  for (const auto& seed : seeds) {
    run(seed);
    systematic += run_systematic_mutations(seed);
  }
  std::mt19937_64 rng(flags.seed);
  int64_t random = 0;
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const bool timed = flags.runs < 0;
  while (timed ? elapsed() < flags.max_total_time : random < flags.runs) {
    run(mutate(seeds, rng, flags.max_len));
    ++random;
  }
  std::printf("fuzz driver: %zu seeds, %zu systematic and %lld random mutations (-seed=%llu) in %.1f s: no crash\n",
              seeds.size(), systematic, static_cast<long long>(random), static_cast<unsigned long long>(flags.seed),
              elapsed());
  return 0;
}
