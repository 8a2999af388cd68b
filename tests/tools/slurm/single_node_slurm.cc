#include "tests/tools/slurm/single_node_slurm.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "distributed/launch/free_port.h"

namespace brisk::testing {
namespace {

const std::vector<std::string> kPrograms = {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd",
                                            "/usr/bin/srun",    "/usr/bin/sbatch",     "/usr/bin/sinfo"};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

bool SingleNodeSlurm::available() { return missing().empty(); }

std::string SingleNodeSlurm::missing() {
  std::string absent;
  for (const std::string& program : kPrograms)
    if (::access(program.c_str(), X_OK) != 0) absent += (absent.empty() ? "" : ", ") + program;
  return absent.empty() ? "" : "SKIPPED: Slurm is not installed (" + absent + "; tools/setup.sh installs them)";
}

SingleNodeSlurm::SingleNodeSlurm(int cpus) {
  // Short: munge's socket path must fit a sockaddr_un.
  char pattern[] = "/tmp/brisk-slurm-XXXXXX";
  REQUIRE(::mkdtemp(pattern) != nullptr);
  dir_ = pattern;
  try {
    start(cpus);
  } catch (...) {
    stop();  // a cluster that did not come up leaves nothing behind either
    throw;
  }
}

void SingleNodeSlurm::start(int cpus) {
  for (const char* sub : {"state", "spool"}) std::filesystem::create_directory(dir_ + "/" + sub);
  {
    std::ofstream key(dir_ + "/munge.key", std::ios::binary);
    std::random_device random;
    for (int i = 0; i < 1024; ++i) key.put(static_cast<char>(random()));
  }
  ::chmod((dir_ + "/munge.key").c_str(), 0400);
  const int ctld_port = launch::free_port("127.0.0.1");
  int slurmd_port = launch::free_port("127.0.0.1");
  while (slurmd_port == ctld_port) slurmd_port = launch::free_port("127.0.0.1");
  std::ofstream conf(dir_ + "/slurm.conf");
  conf << "ClusterName=brisktest\n"
       << "SlurmctldHost=localhost(127.0.0.1)\n"
       << "SlurmUser=root\nSlurmdUser=root\n"
       << "SlurmctldPort=" << ctld_port << "\nSlurmdPort=" << slurmd_port << "\n"
       << "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << dir_ << "/munge.sock\n"
       << "StateSaveLocation=" << dir_ << "/state\nSlurmdSpoolDir=" << dir_ << "/spool\n"
       << "SlurmctldPidFile=" << dir_ << "/slurmctld.pid\nSlurmdPidFile=" << dir_ << "/slurmd.pid\n"
       << "SlurmctldLogFile=" << dir_ << "/slurmctld.log\nSlurmdLogFile=" << dir_
       << "/slurmd.log\n"
       // No cgroups: the test machine's containers have none to give.
       << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSwitchType=switch/none\nMpiDefault=none\n"
       << "ReturnToService=2\nSchedulerType=sched/builtin\nSelectType=select/cons_tres\n"
       << "SelectTypeParameters=CR_Core\nSlurmdParameters=config_overrides\n"
       << "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
       << "NodeName=localhost NodeAddr=127.0.0.1 CPUs=" << cpus << " State=UNKNOWN\n"
       << "PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES\n";
  conf.close();
  daemons_.push_back(spawn({"/usr/sbin/munged", "--foreground", "--force", "--socket=" + dir_ + "/munge.sock",
                            "--key-file=" + dir_ + "/munge.key", "--log-file=" + dir_ + "/munged.log",
                            "--pid-file=" + dir_ + "/munged.pid", "--seed-file=" + dir_ + "/munged.seed"},
                           dir_ + "/munged.out"));
  for (int i = 0; i < 100 && ::access((dir_ + "/munge.sock").c_str(), F_OK) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::string conf_path = dir_ + "/slurm.conf";
  daemons_.push_back(spawn({"/usr/sbin/slurmctld", "-D", "-i", "-f", conf_path}, dir_ + "/slurmctld.out"));
  daemons_.push_back(spawn({"/usr/sbin/slurmd", "-D", "-f", conf_path, "-N", "localhost"}, dir_ + "/slurmd.out"));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    RunResult r = run_process({"/usr/bin/sinfo", "-h", "-o", "%t"}, run_options(std::chrono::seconds(10)));
    if (r.status == 0 && r.out.find("idle") != std::string::npos) break;
    INFO("Slurm did not come up within 30 s: " << r.out << r.err << "\n" << logs());
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

SingleNodeSlurm::~SingleNodeSlurm() { stop(); }

void SingleNodeSlurm::stop() {
  // slurmd, slurmctld, then munged: the reverse of their start.
  for (auto it = daemons_.rbegin(); it != daemons_.rend(); ++it) {
    ::kill(*it, SIGTERM);
    int status = 0;
    for (int i = 0; i < 100 && ::waitpid(*it, &status, WNOHANG) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (::waitpid(*it, &status, WNOHANG) == 0) {
      ::kill(*it, SIGKILL);
      ::waitpid(*it, &status, 0);
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

RunOptions SingleNodeSlurm::run_options(std::chrono::seconds timeout) const {
  RunOptions options;
  options.timeout = timeout;
  options.env = {{"SLURM_CONF", dir_ + "/slurm.conf"}};
  return options;
}

std::string SingleNodeSlurm::logs() const {
  std::string all;
  for (const char* name : {"munged.log", "slurmctld.log", "slurmd.log", "slurmctld.out", "slurmd.out"})
    all += std::string("== ") + name + "\n" + read_file(dir_ + "/" + name);
  return all;
}

pid_t SingleNodeSlurm::spawn(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(out >= 0);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) _exit(127);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(out, STDERR_FILENO);
    ::execv(args[0], args.data());
    _exit(127);
  }
  ::close(out);
  REQUIRE(pid > 0);
  return pid;
}

}  // namespace brisk::testing
